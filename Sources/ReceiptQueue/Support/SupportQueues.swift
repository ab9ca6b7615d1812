import Foundation
import Postgres

/// Support's re-drives and discards: each runs the queue's own lifecycle statement
/// (`RedriveFailedJobs`, `DiscardJobs`, `RedriveNotifications`, `RedriveFailedDeliveries`) in one
/// transaction with its audit row, which lists what moved. Nothing here writes a state by hand.
public enum SupportQueues {
    /// What an operation moved, and its audit row (nil when nothing moved: nothing to record).
    public struct Moved<ID: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
        public var ids: [ID]
        public var audit: Int64?
    }

    static let wake = "SELECT pg_notify('receiptq_jobs', '')"

    /// Re-drives failed jobs (`JobEvent.redrive`): the ids given, or every job failed within `since`.
    public static func redriveJobs(ids: [Int64], failedWithin since: Duration?, _ action: SupportAction,
                                   on connection: PostgresConnection) throws -> Moved<Int64> {
        let moved = try connection.transaction { connection -> Moved<Int64> in
            let ids = try since.map { try RedriveFailedJobs.run(failedWithin: $0, on: connection) }
                ?? RedriveFailedJobs.run(ids: ids, on: connection)
            return Moved(ids: ids.sorted(), audit: try audit(action, "jobs.redrive", ids.sorted(), on: connection))
        }
        if !moved.ids.isEmpty { try connection.query(wake) }
        return moved
    }

    /// Discards jobs not yet ended (`JobEvent.discard`), with their `job.failed` events.
    public static func discardJobs(ids: [Int64], _ action: SupportAction, on connection: PostgresConnection) throws -> Moved<Int64> {
        try connection.transaction { connection in
            let moved = try DiscardJobs.run(ids: ids, reason: action.why, on: connection).sorted()
            let audit = try audit(action, "jobs.discard", moved, on: connection)
            if !moved.isEmpty { try AppendJobEvents.runForGivenUp(jobs: moved, on: connection) }
            return Moved(ids: moved, audit: audit)
        }
    }

    /// Re-drives failed or quarantined notifications: the ones given, else every quarantined one.
    public static func redriveNotifications(uuids: [UUID], _ action: SupportAction, on connection: PostgresConnection) throws -> Moved<UUID> {
        try connection.transaction { connection in
            let moved = try (uuids.isEmpty ? RedriveNotifications.runQuarantined(on: connection)
                                           : RedriveNotifications.run(uuids: uuids, on: connection)).sorted { $0.uuidString < $1.uuidString }
            return Moved(ids: moved, audit: try audit(action, "notifications.redrive", moved.map(\.uuidString), on: connection))
        }
    }

    /// Re-drives failed webhook deliveries, of one endpoint or all; returns how many moved.
    public static func redriveDeliveries(endpoint: String?, _ action: SupportAction, on connection: PostgresConnection) throws -> Moved<Int> {
        try connection.transaction { connection in
            let count = try RedriveFailedDeliveries.run(endpoint: endpoint, on: connection)
            guard count > 0 else { return Moved(ids: [], audit: nil) }
            let audit = try RecordAudit.run(action, "deliveries.redrive", subject: "endpoint:" + (endpoint ?? "*"), before: nil,
                                            after: "{\"redriven\": \(count)}", on: connection)
            return Moved(ids: [count], audit: audit)
        }
    }

    /// One audit row for a batch: subject `job:<id>` for one, `jobs` (or `notifications`) for many,
    /// the ids in `after`.
    private static func audit<ID: CustomStringConvertible>(_ action: SupportAction, _ name: String, _ ids: [ID],
                                                          on connection: PostgresConnection) throws -> Int64? {
        guard !ids.isEmpty else { return nil }
        let noun = name.split(separator: ".")[0]
        let subject = ids.count == 1 ? "\(noun.dropLast()):\(ids[0])" : String(noun)
        let list = ids.map { "\"\($0)\"" }.joined(separator: ",")
        return try RecordAudit.run(action, name, subject: subject, before: nil, after: "{\"ids\": [\(list)]}", on: connection)
    }
}
