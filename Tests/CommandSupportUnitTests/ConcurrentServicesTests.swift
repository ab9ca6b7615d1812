import CommandSupport
import Logging
import ServiceLifecycle
import Synchronization
import Testing

@Suite("Concurrent services: graceful shutdown reaches every one at once")
struct ConcurrentServicesTests {
    /// On graceful shutdown, waits (at most `patience`) until its partner has heard it too, then
    /// returns; records whether it did. Told one after another, as a `ServiceGroup` tells its
    /// services, neither would ever see the other hear it before returning.
    final class Partner: Service, Sendable {
        let heard = Mutex(false)
        let sawPartner = Mutex(false)
        let partner = Mutex<Partner?>(nil)
        let patience: Duration

        init(patience: Duration = .seconds(2)) { self.patience = patience }

        func run() async throws {
            try? await gracefulShutdown()
            heard.withLock { $0 = true }
            let deadline = ContinuousClock.now + patience
            while ContinuousClock.now < deadline {
                if partner.withLock({ $0 })?.heard.withLock({ $0 }) == true {
                    sawPartner.withLock { $0 = true }
                    return
                }
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    static func pair() -> (Partner, Partner) {
        let (first, second) = (Partner(), Partner())
        first.partner.withLock { $0 = second }
        second.partner.withLock { $0 = first }
        return (first, second)
    }

    @Test func bothHearTheShutdownBeforeEitherReturns() async throws {
        let (first, second) = Self.pair()
        let group = ServiceGroup(services: [ConcurrentServices([first, second])], logger: Logger(label: "test"))
        let running = Task { try await group.run() }
        try await Task.sleep(for: .milliseconds(100))
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(first.sawPartner.withLock { $0 } && second.sawPartner.withLock { $0 })
    }

    @Test func aServiceGroupAloneTellsThemOneAfterAnother() async throws {
        let (first, second) = (Partner(patience: .milliseconds(300)), Partner(patience: .milliseconds(300)))
        first.partner.withLock { $0 = second }
        second.partner.withLock { $0 = first }
        let group = ServiceGroup(services: [first, second], logger: Logger(label: "test"))
        let running = Task { try await group.run() }
        try await Task.sleep(for: .milliseconds(100))
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(!second.sawPartner.withLock { $0 }, "the last service is told first and returns before the first one is told")
    }

    /// A webhook deliverer with no concurrency returns at once; the worker goes on.
    @Test func aServiceThatReturnsEarlyLeavesTheOthersRunning() async throws {
        struct ReturnsAtOnce: Service { func run() async throws {} }
        let waiting = Partner(patience: .zero)
        let group = ServiceGroup(services: [ConcurrentServices([ReturnsAtOnce(), waiting])], logger: Logger(label: "test"))
        let running = Task { try await group.run() }
        try await Task.sleep(for: .milliseconds(300))
        #expect(!waiting.heard.withLock { $0 }, "nothing stopped the other service")
        await group.triggerGracefulShutdown()
        try await running.value   // a normal end, no "finished unexpectedly"
        #expect(waiting.heard.withLock { $0 })
    }

    /// The backstop: a service that ignores graceful shutdown is cancelled when the budget runs out.
    @Test func whatIgnoresTheShutdownIsCancelledWhenTheBudgetRunsOut() async throws {
        struct SleepsUntilCancelled: Service {
            func run() async throws { try? await Task.sleep(for: .seconds(60)) }
        }
        let group = ProcessServiceGroup.make(services: [SleepsUntilCancelled()], shutdownBudget: .milliseconds(200), logger: Logger(label: "test"))
        let running = Task { try await group.run() }
        try await Task.sleep(for: .milliseconds(100))
        let started = ContinuousClock.now
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(ContinuousClock.now - started < .seconds(5))
    }
}
