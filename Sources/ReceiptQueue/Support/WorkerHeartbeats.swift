import Foundation
import Postgres

/// Each worker's heartbeat row (`receiptq.worker_heartbeats`) and the `live_workers` view: the
/// fleet as it is, not as inferred from leases. A worker beats every interval and deletes its row
/// when it stops gracefully; a row whose beat is older than three intervals reads not live.
public enum WorkerHeartbeats {
    public struct Worker: Sendable, Codable, Hashable {
        public var worker: String
        public var host: String?
        public var pid: Int32?
        public var startedAt: Date
        public var beatAt: Date
        public var intervalMilliseconds: Int32
        public var live: Bool
        public var leasedJobs: Int64
    }

    static let beatSQL = """
        INSERT INTO receiptq.worker_heartbeats AS h (worker, host, pid, interval_ms) VALUES ($1, $2, $3, $4)
        ON CONFLICT (worker) DO UPDATE SET beat_at = now(), host = EXCLUDED.host, pid = EXCLUDED.pid, interval_ms = EXCLUDED.interval_ms
        """
    static let forgetSQL = "DELETE FROM receiptq.worker_heartbeats WHERE worker = $1"
    static let listSQL = """
        SELECT worker, host, pid, started_at, beat_at, interval_ms, live, leased_jobs FROM receiptq.live_workers
        ORDER BY live DESC, worker
        """

    public static func beat(worker: String, host: String, pid: Int32, interval: Duration, on connection: PostgresConnection) throws {
        try connection.query(beatSQL, [worker, host, Int(pid), Int(max(1, interval.milliseconds))])
    }

    public static func forget(worker: String, on connection: PostgresConnection) throws {
        try connection.query(forgetSQL, [worker])
    }

    public static func list(on connection: PostgresConnection) throws -> [Worker] {
        try connection.query(listSQL).map { row in
            Worker(worker: try row.decode("worker"), host: try row.decodeIfPresent("host"), pid: try row.decodeIfPresent("pid"),
                   startedAt: try row.decode("started_at"), beatAt: try row.decode("beat_at"),
                   intervalMilliseconds: try row.decode("interval_ms"), live: try row.decode("live"), leasedJobs: try row.decode("leased_jobs"))
        }
    }
}
