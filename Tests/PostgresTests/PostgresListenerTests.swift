import Foundation
import Postgres
import ReceiptQueueTesting
import Testing

@Suite("Postgres: LISTEN/NOTIFY")
struct PostgresListenerTests {
    @Test func notificationsArriveWithChannelAndPayload() async throws {
        let database = try await TestDatabase.create(migrated: false)
        let listener = PostgresListener(configuration: database.configuration, channels: ["alpha", "beta"])
        defer { listener.stop() }
        var events = listener.events.makeAsyncIterator()
        #expect(await events.next() == .listening)
        let pool = database.pool(size: 1)
        defer { pool.shutdown() }
        try await pool.query("SELECT pg_notify('alpha', 'one'), pg_notify('beta', 'two')")
        var received: [String] = []
        while received.count < 2, let event = await events.next() {
            if case .notification(let notification) = event { received.append("\(notification.channel):\(notification.payload)") }
        }
        #expect(received == ["alpha:one", "beta:two"])
    }

    @Test func listenerReconnectsAndListensAgainAfterItsConnectionIsKilled() async throws {
        let database = try await TestDatabase.create(migrated: false)
        let listener = PostgresListener(configuration: database.configuration, channels: ["wake"])
        defer { listener.stop() }
        var events = listener.events.makeAsyncIterator()
        #expect(await events.next() == .listening)
        let pool = database.pool(size: 1)
        defer { pool.shutdown() }
        try await pool.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND datname = current_database()")
        #expect(await events.next() == .listening)   // reconnected: consumers re-scan the table now
        try await pool.query("SELECT pg_notify('wake', 'after')")
        if case .notification(let notification)? = await events.next() {
            #expect(notification.payload == "after")
        } else {
            Issue.record("expected a notification after reconnecting")
        }
    }

    @Test func listenersLeaveNoFileDescriptorsBehindAndToleratesRepeatedStops() async throws {
        let database = try await TestDatabase.create(migrated: false)
        func openDescriptors() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0 }
        // Warm up whatever the first listener allocates once per process.
        do {
            let listener = PostgresListener(configuration: database.configuration, channels: ["warm"])
            var events = listener.events.makeAsyncIterator()
            _ = await events.next()
            listener.stop()
            while await events.next() != nil {}
        }
        let before = openDescriptors()
        for _ in 0..<20 {
            let listener = PostgresListener(configuration: database.configuration, channels: ["x"])
            var events = listener.events.makeAsyncIterator()
            #expect(await events.next() == .listening)
            listener.stop()
            listener.stop()   // a second stop must not write into a closed pipe (SIGPIPE)
            while await events.next() != nil {}
        }
        // Other tests run in parallel and open sockets too: allow a little, not 2 per listener.
        #expect(openDescriptors() - before < 20)
    }

    @Test func stopFinishesTheEventStream() async throws {
        let database = try await TestDatabase.create(migrated: false)
        let listener = PostgresListener(configuration: database.configuration, channels: ["x"])
        var events = listener.events.makeAsyncIterator()
        #expect(await events.next() == .listening)
        listener.stop()
        #expect(await events.next() == nil)
    }
}
