import Testing

@testable import Worker

/// The claim loops' wake-up: a signal or the polling timeout, never a wake-up left behind by the
/// timer of a wait that a signal already ended (that made every idle worker loop spin).
@Suite("Wake signal: one wake-up per signal or timeout")
struct WakeSignalTests {
    @Test("a wait ended by a signal leaves nothing behind: the next wait sleeps its timeout")
    func signalledWaitLeavesNoSignal() async throws {
        let wake = WakeSignal()
        for _ in 0..<3 {
            wake.signal()
            await wake.wait(timeout: .seconds(30))   // pending: returns at once, its timer cancelled
        }
        try await Task.sleep(for: .milliseconds(100))   // the cancelled timers have run by now
        let started = ContinuousClock.now
        await wake.wait(timeout: .milliseconds(400))
        #expect(ContinuousClock.now - started >= .milliseconds(350))
    }

    @Test("a wait returns at its timeout without a signal, and at once on a signal while it waits")
    func timeoutAndSignal() async throws {
        let wake = WakeSignal()
        let started = ContinuousClock.now
        await wake.wait(timeout: .milliseconds(100))
        #expect(ContinuousClock.now - started >= .milliseconds(90))

        let signaller = Task {
            try await Task.sleep(for: .milliseconds(100))
            wake.signal()
        }
        let waiting = ContinuousClock.now
        await wake.wait(timeout: .seconds(30))
        #expect(ContinuousClock.now - waiting < .seconds(10))
        try await signaller.value
    }
}
