import Foundation
import Postgres
import ReceiptQueue
import Testing

/// Every leased queue's table agrees with its spec: the state check names exactly the spec's
/// states, the lease check ties the leased state to the lease columns, and the columns the spec
/// names exist.
@Suite("Lifecycle: every queue's schema agrees with its spec")
struct QueueSchemaTests {
    @Test(arguments: QueueCatalog.all.map(\.table.name))
    func theStateAndLeaseChecksNameTheSpecsStates(_ table: String) async throws {
        let entry = try #require(QueueCatalog.all.first { $0.table.name == table })
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let check = try await fixture.pool.query("""
            SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conname = $1
            """, [entry.table.stateCheck])[0].decode("definition", as: String.self)
        #expect(SchemaAgreementTests.quoted(check) == Set(entry.states), "\(entry.table.stateCheck): \(check)")
        if let leaseCheck = entry.table.leaseCheck {
            let lease = try await fixture.pool.query("""
                SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conname = $1
                """, [leaseCheck])[0].decode("definition", as: String.self)
            #expect(SchemaAgreementTests.quoted(lease) == Set([entry.leased].compactMap { $0 }), "\(leaseCheck): \(lease)")
            #expect(lease.contains("locked_by") && lease.contains("locked_until"))
        } else {
            #expect(entry.leased == nil)
        }
        let columns = Set(try await fixture.pool.query("""
            SELECT column_name FROM information_schema.columns WHERE table_schema = 'receiptq' AND table_name = $1
            """, [entry.table.shortName]).map { try $0.decode("column_name", as: String.self) })
        for column in entry.table.key + [entry.table.attempts].compactMap({ $0 }) + ["state"] {
            #expect(columns.contains(column), "\(table).\(column)")
        }
    }

    @Test func everyLeasedQueueHasASpec() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        // A table with a locked_by column is a leased queue: each must be in the catalog.
        let leased = Set(try await fixture.pool.query("""
            SELECT 'receiptq.' || table_name AS name FROM information_schema.columns
            WHERE table_schema = 'receiptq' AND column_name = 'locked_by'
              AND table_name IN (SELECT table_name FROM information_schema.tables WHERE table_schema = 'receiptq' AND table_type = 'BASE TABLE')
            """).map { try $0.decode("name", as: String.self) })
        #expect(leased.isSubset(of: Set(QueueCatalog.all.map(\.table.name))), "\(leased)")
    }
}
