import Foundation
import Postgres

/// The fleet's pause switch (`receiptq.fleet_control`): while paused, `ClaimBatch` claims no job
/// (every worker, at its next claim); leases already held finish. For a shared-secret rotation,
/// a bad deploy, Apple asking us to slow down.
public enum FleetControl {
    public struct State: Sendable, Codable, Hashable {
        public var paused: Bool
        public var changedAt: Date
        public var changedBy: String?
        public var reason: String?
    }

    static let readSQL = "SELECT paused, changed_at, changed_by, reason FROM receiptq.fleet_control"
    static let setSQL = """
        UPDATE receiptq.fleet_control SET paused = $1, changed_at = now(), changed_by = $2, reason = $3
        RETURNING paused, changed_at, changed_by, reason
        """

    public static func read(on connection: PostgresConnection) throws -> State {
        try state(connection.query(readSQL)[0])
    }

    /// Pauses or resumes, audited (`fleet.pause` / `fleet.resume`, subject `fleet`), in one
    /// transaction. Returns the new state and the audit row's id.
    public static func set(paused: Bool, _ action: SupportAction, on connection: PostgresConnection) throws -> (State, Int64) {
        try connection.transaction { connection in
            let before = try read(on: connection)
            let after = try state(connection.query(setSQL, [paused, action.actor, action.why])[0])
            let audit = try RecordAudit.run(action, paused ? "fleet.pause" : "fleet.resume", subject: "fleet",
                                            before: "{\"paused\": \(before.paused)}", after: "{\"paused\": \(after.paused)}", on: connection)
            return (after, audit)
        }
    }

    private static func state(_ row: PostgresRow) throws -> State {
        State(paused: try row.decode("paused"), changedAt: try row.decode("changed_at"),
              changedBy: try row.decodeIfPresent("changed_by"), reason: try row.decodeIfPresent("reason"))
    }
}
