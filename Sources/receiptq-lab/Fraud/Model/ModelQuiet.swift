import Foundation
import Postgres

/// The fleet at rest: no job waiting or being verified, no notification waiting or being applied,
/// no history sync waiting or walking. What a step sets off (a grant's first-sighting sync, the jobs
/// a notification or a history page queues) commits in the same transaction as what set it off, so
/// one quiet read means it has all ended. Read as the schema's owner (the scratch database's).
struct ModelQuiet: Sendable {
    static let busySQL = """
        SELECT (SELECT count(*) FROM receiptq.jobs WHERE state IN ('queued', 'verifying', 'timed_out'))
             + (SELECT count(*) FROM receiptq.notifications WHERE state IN ('queued', 'applying'))
             + (SELECT count(*) FROM receiptq.history_syncs WHERE state IN ('queued', 'syncing')) AS busy
        """

    let pool: PostgresPool

    func wait(timeout: Duration = .seconds(90)) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let busy = try await pool.query(Self.busySQL)[0].decode("busy", as: Int64.self)
            if busy == 0 { return }
            guard ContinuousClock.now < deadline else { throw FraudError("the fleet was still busy (\(busy) items) after \(timeout)") }
            try await Task.sleep(for: .milliseconds(25))
        }
    }
}
