import PostgresTesting
import Foundation
@testable import Postgres
import Testing

@Suite("Postgres: LISTEN/NOTIFY")
struct PostgresListenerTests {
    @Test func notificationsArriveWithChannelAndPayload() async throws {
        let database = try await ScratchDatabase.create()
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
        let database = try await ScratchDatabase.create()
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

    @Test func listenersCloseTheirWakePipeAndTolerateRepeatedStops() async throws {
        let database = try await ScratchDatabase.create()
        /// The pipe's identity: descriptor numbers are reused at once by other tests running in
        /// parallel, inode numbers of pipes are not.
        func inode(_ fd: Int32) -> ino_t? {
            var info = stat()
            return fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO ? info.st_ino : nil
        }
        var pipes: [(fd: Int32, inode: ino_t)] = []
        for _ in 0..<5 {
            let listener = PostgresListener(configuration: database.configuration, channels: ["x"])
            let (read, write) = listener.wakeDescriptors
            pipes += [(read, try #require(inode(read))), (write, try #require(inode(write)))]
            var events = listener.events.makeAsyncIterator()
            #expect(await events.next() == .listening)
            listener.stop()
            listener.stop()   // a second stop must not write into a closed pipe (SIGPIPE)
            while await events.next() != nil {}
        }   // each listener is released here: its write end closes in deinit
        for pipe in pipes {
            #expect(inode(pipe.fd) != pipe.inode, "descriptor \(pipe.fd) still holds the listener's pipe")
        }
    }

    @Test func stopFinishesTheEventStream() async throws {
        let database = try await ScratchDatabase.create()
        let listener = PostgresListener(configuration: database.configuration, channels: ["x"])
        var events = listener.events.makeAsyncIterator()
        #expect(await events.next() == .listening)
        listener.stop()
        #expect(await events.next() == nil)
    }
}
