import Foundation
import Postgres
import PostgresTesting
@testable import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// `events.sequence` is assigned in commit order only if every writer of events takes the one
/// lock that serialises appends until commit (`AppendJobEvents.lockKey`); a writer under another
/// key lets a reader paging by sequence skip an event that commits late. Three functions once
/// took a mistyped key (0x52415551 for 0x52515551) beside a comment naming the right one.
@Suite("Events: every function that appends one takes the events' ordering lock")
struct EventOrderLockTests {
    @Test func everyFunctionInsertingEventsTakesAppendJobEventsLock() async throws {
        let database = try await ScratchDatabase.migrated()
        let pool = database.pool(size: 1)
        let functions = try await pool.query("""
            SELECT p.proname AS name, p.prosrc AS source FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname = 'receiptq' AND p.prosrc ~* 'INSERT\\s+INTO\\s+receiptq\\.events\\M'
            """).map { (try $0.decode("name", as: String.self), try $0.decode("source", as: String.self)) }
        pool.shutdown()
        await database.drop()
        let lock = "pg_advisory_xact_lock(\(AppendJobEvents.lockKey.0), \(AppendJobEvents.lockKey.1))"
        #expect(functions.count >= 4, "found \(functions.map(\.0))")
        for (name, source) in functions {
            #expect(source.contains(lock), "receiptq.\(name) inserts events without \(lock)")
        }
    }
}
