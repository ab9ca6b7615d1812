import Foundation
import Logging
import Postgres
import ReceiptQueue
import ServiceLifecycle

/// Writes this worker's row of `receiptq.worker_heartbeats` every `interval` (the console's and
/// `receiptq support workers`' list of live workers), and deletes it on graceful shutdown, so a
/// stopped worker leaves the list at once and a dead one reads not live after three intervals.
/// A failed beat is logged and tried again next interval: the heartbeat never stops the work.
public struct WorkerHeartbeat: Service {
    public let worker: String
    public let interval: Duration
    let pool: PostgresPool
    let logger: Logger

    /// - Parameter interval: default 5 s.
    public init(worker: String, interval: Duration = .seconds(5), pool: PostgresPool, logger: Logger) {
        self.worker = worker
        self.interval = interval
        self.pool = pool
        self.logger = logger
    }

    public func run() async throws {
        let worker = self.worker, interval = self.interval
        let host = ProcessInfo.processInfo.hostName, pid = ProcessInfo.processInfo.processIdentifier
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await pool.withConnection { try WorkerHeartbeats.beat(worker: worker, host: host, pid: pid, interval: interval, on: $0) }
                } catch {
                    logger.warning("heartbeat not written", metadata: ["error": "\(error)"])
                }
                try? await Task.sleep(for: interval)
            }
        }
        try? await pool.withConnection { try WorkerHeartbeats.forget(worker: worker, on: $0) }
    }
}
