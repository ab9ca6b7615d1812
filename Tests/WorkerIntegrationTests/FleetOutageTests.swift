import FakeAppStore
import Postgres
import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// One worker finding Apple down stops the others before they find out with a claim batch each
/// (invariant 5 across a fleet, over real NOTIFY).
@Suite("Fleet breaker: an outage one worker sees stops the others", .timeLimit(.minutes(3)))
struct FleetOutageTests {
    @Test func aWorkerWhoseBreakerOpensTellsTheOthersOnce() async throws {
        let e2e = try await EndToEnd.make(fake: FakeAppStoreConfiguration(
            latency: FakeDurationRange(lower: .milliseconds(20), upper: .milliseconds(50)),
            outages: [FakeOutage(start: .zero, end: .seconds(8), kind: .refused)]))   // long enough for a loaded machine's first claim
        let listener = PostgresListener(configuration: e2e.database.configuration, channels: [OutageNotice.channel])
        defer { listener.stop() }
        var events = listener.events.makeAsyncIterator()
        #expect(await events.next() == .listening)

        let worker = e2e.startWorker(e2e.workerConfiguration(name: "worker-a"))
        _ = try await e2e.queue.enqueue((0..<40).map { n in
            NewJob(receiptData: EndToEnd.receipt([("fleet-\(n)", "coins100")]), transactionID: "fleet-\(n)", userID: "u\(n)")
        })
        guard case .notification(let notification) = await events.next() else {
            Issue.record("no notice")
            return
        }
        #expect(OutageNotice(payload: notification.payload) == OutageNotice(environment: "Production", worker: "worker-a"))
        #expect(try await e2e.waitUntilDrained(timeout: .seconds(40)))
        #expect(try await e2e.count("SELECT count(*) FROM receiptq.jobs WHERE state = 'granted'") == 40)
        try await worker.stop()
        // Failed probes during the outage re-open the breaker without telling anyone again.
        try await e2e.pool.query("SELECT pg_notify($1, 'end')", [OutageNotice.channel])
        if case .notification(let next) = await events.next() { #expect(next.payload == "end") }
        await e2e.shutdown()
    }

    @Test func aBacklogClaimedAsAnOutageBeginsIsReleasedAfterItsCanariesFail() async throws {
        // The worker is past slow start (Apple answered it) and has been quiet for seconds, then
        // Apple starts answering HTML pages, then 200 receipts arrive at once: one claim. Only
        // its canaries may reach Apple. A 3 s window: a loaded CI machine took over 500 ms to
        // bring the canaries' failures back, and beside 48 suites at once over 2 s (35 requests
        // reached Apple: the second chunk went); the lull must then last 4 windows.
        let e2e = try await EndToEnd.make(fake: FakeAppStoreConfiguration(
            latency: FakeDurationRange(lower: .milliseconds(20), upper: .milliseconds(50)),
            outages: [FakeOutage(start: .seconds(14), end: .seconds(21), kind: .html200)]))
        var configuration = e2e.workerConfiguration(name: "worker-c", concurrency: 500)
        configuration.breaker.openDuration = .seconds(2)
        configuration.canaryWindow = .seconds(3)
        let worker = e2e.startWorker(configuration)
        _ = try await e2e.queue.enqueue([NewJob(receiptData: EndToEnd.receipt([("warm", "coins100")]), transactionID: "warm", userID: "u")])
        #expect(try await e2e.waitUntilDrained(timeout: .seconds(10)))
        let quietSince = ContinuousClock.now   // a send 3–12 s old would vouch for the batch
        while e2e.fake.elapsed < .milliseconds(14_200) || ContinuousClock.now < quietSince + .milliseconds(12_500) {
            try await Task.sleep(for: .milliseconds(50))
        }
        let before = e2e.fake.stats.snapshot().requests
        _ = try await e2e.queue.enqueue((0..<200).map { n in
            NewJob(receiptData: EndToEnd.receipt([("backlog-\(n)", "coins100")]), transactionID: "backlog-\(n)", userID: "u\(n)")
        })
        // Until the claim has gone out and come back: canaries failed, the rest released (or sent).
        #expect(try await eventually(timeout: .seconds(15)) {
            guard e2e.fake.stats.snapshot().requests - before >= configuration.breaker.failureThreshold else { return false }
            return try await e2e.count("SELECT count(*) FROM receiptq.jobs WHERE state = 'verifying'") == 0
        })
        let sent = e2e.fake.stats.snapshot().requests - before
        #expect(sent <= configuration.breaker.failureThreshold + 3, "\(sent) requests reached Apple during the outage")
        #expect(try await e2e.waitUntilDrained(timeout: .seconds(40)))
        #expect(try await e2e.count("SELECT count(*) FROM receiptq.jobs WHERE state = 'granted'") == 201)
        try await worker.stop()
        await e2e.shutdown()
    }

    @Test func aBusyWorkersBatchStopsAtTheFirstChunkWhenAnOutageBegins() async throws {
        // The worker has been sending all along (its recent sends vouch for a whole batch, so no
        // canary wait); Apple starts answering HTML pages; 200 receipts arrive at once. Sent in
        // chunks with the breaker checked between them, only the first chunk reaches Apple.
        // A 1 s pace: a loaded machine needs time to bring the first chunk's failures back.
        let e2e = try await EndToEnd.make(fake: FakeAppStoreConfiguration(
            latency: FakeDurationRange(lower: .milliseconds(20), upper: .milliseconds(50)),
            outages: [FakeOutage(start: .seconds(6), end: .seconds(15), kind: .html200)]))
        var configuration = e2e.workerConfiguration(name: "worker-d", concurrency: 500)
        configuration.breaker.openDuration = .seconds(2)
        configuration.canaryWindow = .seconds(1)
        configuration.sendPace = .seconds(1)
        let worker = e2e.startWorker(configuration)
        var n = 0
        while e2e.fake.elapsed < .milliseconds(5_500) {   // busy: one receipt every 100 ms
            _ = try await e2e.queue.enqueue([NewJob(receiptData: EndToEnd.receipt([("busy-\(n)", "coins100")]), transactionID: "busy-\(n)", userID: "u")])
            n += 1
            try await Task.sleep(for: .milliseconds(100))
        }
        while e2e.fake.elapsed < .milliseconds(6_200) { try await Task.sleep(for: .milliseconds(20)) }
        let before = e2e.fake.stats.snapshot().requests
        _ = try await e2e.queue.enqueue((0..<200).map { n in
            NewJob(receiptData: EndToEnd.receipt([("burst-\(n)", "coins100")]), transactionID: "burst-\(n)", userID: "u\(n)")
        })
        #expect(try await eventually(timeout: .seconds(15)) {
            guard e2e.fake.stats.snapshot().requests - before >= configuration.breaker.failureThreshold else { return false }
            return try await e2e.count("SELECT count(*) FROM receiptq.jobs WHERE state = 'verifying'") == 0
        })
        let sent = e2e.fake.stats.snapshot().requests - before
        #expect(sent <= configuration.breaker.failureThreshold + 3, "\(sent) requests reached Apple during the outage")
        #expect(try await e2e.waitUntilDrained(timeout: .seconds(40)))
        #expect(try await e2e.count("SELECT count(*) FROM receiptq.jobs WHERE state = 'granted'") == n + 200)
        try await worker.stop()
        await e2e.shutdown()
    }

    @Test func aWorkerToldOfAnOutageClaimsNothingUntilItsOwnProbeAnswers() async throws {
        let e2e = try await EndToEnd.make(fake: FakeAppStoreConfiguration(
            latency: FakeDurationRange(lower: .milliseconds(20), upper: .milliseconds(50))))
        var configuration = e2e.workerConfiguration(name: "worker-b")
        // Long enough that a loaded CI machine cannot reach the probe before the check below.
        configuration.breaker.openDuration = .seconds(8)
        configuration.breaker.maxOpenDuration = .seconds(8)
        let logs = CapturedLogs()
        let worker = e2e.startWorker(configuration, logs: logs)
        // Until the worker has heard it: notices sent before it LISTENs are lost by design. Sent
        // as another worker sends it: from a session of a receiptq_worker login.
        let otherWorker = PostgresPool(configuration: e2e.workerDatabase, size: 1)
        defer { otherWorker.shutdown() }
        let heard = try await eventually(timeout: .seconds(10), every: .milliseconds(200)) {
            try await JobQueue(pool: otherWorker).announce(OutageNotice(environment: "Production", worker: "worker-a"))
            return logs.at(.warning).contains { $0.message.contains("another worker saw Apple failing") }
        }
        #expect(heard)
        _ = try await e2e.queue.enqueue((0..<20).map { n in
            NewJob(receiptData: EndToEnd.receipt([("told-\(n)", "coins100")]), transactionID: "told-\(n)", userID: "u\(n)")
        })
        try await Task.sleep(for: .seconds(1))
        #expect(try await e2e.count("SELECT count(*) FROM receiptq.jobs WHERE attempts > 0") == 0)
        #expect(e2e.fake.stats.snapshot().requests == 0)
        #expect(try await e2e.waitUntilDrained(timeout: .seconds(20)))
        #expect(try await e2e.count("SELECT count(*) FROM receiptq.jobs WHERE state = 'granted'") == 20)
        try await worker.stop()
        await e2e.shutdown()
    }

    @Test func aSpoofedOutageNoticeFromASessionThatIsNotAWorkerIsIgnored() async throws {
        let e2e = try await EndToEnd.make(fake: FakeAppStoreConfiguration(
            latency: FakeDurationRange(lower: .milliseconds(20), upper: .milliseconds(50))))
        let logs = CapturedLogs()
        let worker = e2e.startWorker(e2e.workerConfiguration(name: "worker-s"), logs: logs)
        // Anyone with a login may NOTIFY: here the API's role, as a compromised API would.
        let api = PostgresPool(configuration: try await e2e.database.configuration(as: .api), size: 1)
        defer { api.shutdown() }
        let ignored = try await eventually(timeout: .seconds(10), every: .milliseconds(200)) {
            try await JobQueue(pool: api).announce(OutageNotice(environment: "Production", worker: "worker-a"))
            return logs.at(.warning).contains { $0.message.contains("ignored an Apple outage notice") }
        }
        #expect(ignored)
        for _ in 0..<5 { try await JobQueue(pool: api).announce(OutageNotice(environment: "Production", worker: "worker-a")) }
        _ = try await e2e.queue.enqueue((0..<20).map { n in
            NewJob(receiptData: EndToEnd.receipt([("spoof-\(n)", "coins100")]), transactionID: "spoof-\(n)", userID: "u\(n)")
        })
        #expect(try await e2e.waitUntilDrained(timeout: .seconds(10)))
        #expect(!logs.at(.warning).contains { $0.message.contains("another worker saw Apple failing") })
        #expect(logs.at(.warning).filter { $0.message.contains("ignored an Apple outage notice") }.count == 1)   // once a minute
        try await worker.stop()
        await e2e.shutdown()
    }

    @Test func aWorkerStartedIntoAFleetThatJustHeardFromAppleSendsAtFullRateAtOnce() async throws {
        // Apple answers in 4–5 s (the workers wait up to 10 s). A slow start would keep the new worker at 20 requests out until
        // its first answers came back; a fleet that heard from Apple in the last 10 s vouches for it.
        let e2e = try await EndToEnd.make(fake: FakeAppStoreConfiguration(
            latency: FakeDurationRange(lower: .seconds(4), upper: .seconds(5))))
        let warm = e2e.startWorker(e2e.workerConfiguration(name: "worker-a", concurrency: 20), timeout: .seconds(10))
        _ = try await e2e.queue.enqueue((0..<20).map { n in
            NewJob(receiptData: EndToEnd.receipt([("warm-\(n)", "coins100")]), transactionID: "warm-\(n)", userID: "u\(n)")
        })
        #expect(try await e2e.waitUntilDrained(timeout: .seconds(30)))
        try await warm.stop()   // only the new worker sends from here

        _ = try await e2e.queue.enqueue((0..<300).map { n in
            NewJob(receiptData: EndToEnd.receipt([("busy-\(n)", "coins100")]), transactionID: "busy-\(n)", userID: "u\(n)")
        })
        let before = e2e.fake.stats.snapshot().requests
        let worker = e2e.startWorker(e2e.workerConfiguration(name: "worker-b", concurrency: 300), timeout: .seconds(10))
        var firstSent: ContinuousClock.Instant?
        var reached: Duration?
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline, reached == nil {
            let stats = e2e.fake.stats.snapshot()
            if firstSent == nil, stats.requests > before { firstSent = .now }
            if let firstSent, stats.pending >= 250 { reached = .now - firstSent }
            try await Task.sleep(for: .milliseconds(20))
        }
        // 250 out before the first could be answered: no round trip of slow start.
        #expect(reached.map { $0 < .seconds(4) } == true, "250 in flight after \(String(describing: reached)) from the first request")
        #expect(try await e2e.waitUntilDrained(timeout: .seconds(30)))
        try await worker.stop()
        await e2e.shutdown()
    }
}
