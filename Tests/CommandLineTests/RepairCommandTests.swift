import Foundation
import Postgres
import PostgresTesting
import ReceiptQueueTesting
import Testing

/// The operators' repairs as commands: `receiptq redrive` and `receiptq release --worker`, each
/// with a dry run that changes nothing, each refusing bad flags by name.
@Suite("Operations: redrive and release from the command line")
struct RepairCommandTests {
    static func state(_ pool: PostgresPool, _ id: Int64) async throws -> String {
        try await pool.query("SELECT state FROM receiptq.jobs WHERE id = $1", [id])[0].decode("state")
    }

    @Test func releaseEndsADeadWorkersLeasesAfterADryRunThatMovesNothing() async throws {
        let database = try await ScratchDatabase.migrated()
        let owner = database.pool(size: 1)
        defer { owner.shutdown() }
        // One job of the dead worker with budget left, one at its last attempt (a poison job), one of a live worker.
        var ids: [Int64] = []
        for (worker, attempts) in [("dead", 1), ("dead", 1000), ("live", 1)] {
            ids.append(try await owner.query("""
                INSERT INTO receiptq.jobs (receipt_data, transaction_id, user_id, state, attempts, locked_by, locked_until)
                VALUES ('r', 'tx-' || $1 || $2::text, 'u', 'verifying', $2::int, $1, now() + interval '10 minutes') RETURNING id
                """, [worker, attempts])[0].decode("id"))
        }
        let url = database.connectionString
        let dry = try await ChildProcess.run(arguments: ["release", "--worker", "dead", "--dry-run", "--database-url", url])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("would release 2 leases of worker dead: 1 jobs requeued, 1 jobs failed (budget spent): \(ids[1])"),
                "\(dry.stdout)")
        #expect(try await Self.state(owner, ids[0]) == "verifying")
        let real = try await ChildProcess.run(arguments: ["release", "--worker", "dead", "--database-url", url])
        #expect(real.status == 0, "\(real.stderr)")
        #expect(real.stdout.contains("released 2 leases of worker dead"), "\(real.stdout)")
        #expect(try await Self.state(owner, ids[0]) == "queued")
        #expect(try await Self.state(owner, ids[1]) == "failed")
        #expect(try await Self.state(owner, ids[2]) == "verifying")
        let refused = try await ChildProcess.run(arguments: ["release", "--worker", " ", "--database-url", url])
        #expect(refused.status == 64 && refused.stderr.contains("--worker"), "\(refused.stderr)")
    }

    @Test func redriveDryRunPrintsWhatWouldMoveAndMovesNothing() async throws {
        let database = try await ScratchDatabase.migrated()
        let owner = database.pool(size: 1)
        defer { owner.shutdown() }
        let id: Int64 = try await owner.query("""
            INSERT INTO receiptq.jobs (receipt_data, transaction_id, user_id, state, finished_at, outcome_reason)
            VALUES ('r', 'tx', 'u', 'failed', now(), 'why') RETURNING id
            """)[0].decode("id")
        let url = database.connectionString
        let dry = try await ChildProcess.run(arguments: ["redrive", "--failed-within", "1h", "--dry-run", "--database-url", url])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("would re-drive 1 failed jobs: \(id)"), "\(dry.stdout)")
        #expect(try await Self.state(owner, id) == "failed")
        let real = try await ChildProcess.run(arguments: ["redrive", "--failed-within", "1h", "--database-url", url])
        #expect(real.stdout.contains("re-drove 1 failed jobs: \(id)"), "\(real.stdout)")
        #expect(try await Self.state(owner, id) == "queued")
    }
}
