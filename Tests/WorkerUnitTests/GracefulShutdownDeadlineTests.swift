import Logging
import ServiceLifecycle
import Synchronization
import Testing
@testable import Worker

@Suite("Work in flight at SIGTERM: it may finish until the deadline, then it is cancelled")
struct GracefulShutdownDeadlineTests {
    /// Runs `operation` through `cancelAfterGracefulShutdown` inside a service group, triggers
    /// graceful shutdown after `shutdownAfter` (nil: never), returns what the operation returned.
    static func run(deadline: Duration, shutdownAfter: Duration?, _ operation: @escaping @Sendable () async -> String) async throws -> String {
        let result = Mutex<String?>(nil)
        struct Once: Service {
            let body: @Sendable () async -> Void
            func run() async throws { await body() }
        }
        let group = ServiceGroup(configuration: .init(services: [
            .init(service: Once {
                let value = await cancelAfterGracefulShutdown(deadline: deadline, operation)
                result.withLock { $0 = value }
            }, successTerminationBehavior: .gracefullyShutdownGroup),
        ], logger: Logger(label: "test")))
        let running = Task { try await group.run() }
        if let shutdownAfter {
            try await Task.sleep(for: shutdownAfter)
            await group.triggerGracefulShutdown()
        }
        try await running.value
        return try #require(result.withLock { $0 })
    }

    /// Sleeps `duration`; says whether it was cancelled.
    static func sleeps(_ duration: Duration) -> @Sendable () async -> String {
        { (try? await Task.sleep(for: duration)) == nil ? "cancelled" : "finished" }
    }

    @Test func withoutAShutdownTheOperationRunsToItsEnd() async throws {
        #expect(try await Self.run(deadline: .milliseconds(10), shutdownAfter: nil, Self.sleeps(.milliseconds(200))) == "finished")
    }

    @Test func workThatEndsWithinTheDeadlineAfterTheShutdownFinishes() async throws {
        #expect(try await Self.run(deadline: .seconds(5), shutdownAfter: .milliseconds(50), Self.sleeps(.milliseconds(300))) == "finished")
    }

    @Test func workStillRunningAtTheDeadlineIsCancelledThen() async throws {
        let started = ContinuousClock.now
        #expect(try await Self.run(deadline: .milliseconds(300), shutdownAfter: .milliseconds(50), Self.sleeps(.seconds(60))) == "cancelled")
        let took = ContinuousClock.now - started
        // Well under the 60 s the work would take; generous, as the suite runs beside ~600 tests on 2 cores.
        #expect(took >= .milliseconds(350) && took < .seconds(30), "\(took)")
    }
}
