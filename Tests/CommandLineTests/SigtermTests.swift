import Foundation
import PostgresTesting
import ReceiptQueueTesting
import Testing

/// Invariant 11: every long-running process stops within 5 s of SIGTERM, in every configuration
/// docs/guarantees.md documents, with exit status 0 — whatever it is waiting for at the time (a sleep
/// between runs, Apple's answer, a receiver that hangs, a long-poll, a slow client). Each test
/// starts the real `receiptq` binary, waits until it is ready, sends SIGTERM and prints the
/// seconds to its exit ("SIGTERM to exit | …" in the output). One at a time: a bound of seconds
/// means little on two cores shared with other SIGTERM tests.
@Suite("SIGTERM: every long-running process exits within 5 s", .serialized, .timeLimit(.minutes(3)))
struct SigtermTests {
    static let bound = 5.0

    // MARK: - receiptq api

    @Test func apiExitsWithinFiveSeconds() async throws {
        let fixture = try await SigtermFixture.make()
        let (port, admin) = (try FreePort.pick(), try FreePort.pick())
        let api = try await startAPI(fixture, port: port, admin: admin)
        defer { api.kill() }
        #expect(await SigtermFixture.ready(adminPort: admin, api), "api said: \(api.stderr)")
        let stop = await SigtermFixture.terminate(api, "api")
        #expect(stop.status == 0, "api said: \(api.stderr)")
        #expect(stop.seconds < Self.bound)
        await fixture.tearDown()
    }

    /// A long-poll is answered at once with the current state, and a client that sent a request's
    /// head and part of its body, then went quiet (its idle timeout is 20 s), does not hold the
    /// process up.
    @Test func apiWithALongPollWaitingAndAHalfSentRequestExitsWithinFiveSeconds() async throws {
        let fixture = try await SigtermFixture.make()
        let id = try await fixture.owner.query("""
            INSERT INTO receiptq.jobs (receipt_data, transaction_id, user_id) VALUES ('cmVjZWlwdA==', 't', 'u') RETURNING id
            """)[0].decode("id", as: Int64.self)
        let (port, admin) = (try FreePort.pick(), try FreePort.pick())
        let api = try await startAPI(fixture, port: port, admin: admin)
        defer { api.kill() }
        #expect(await SigtermFixture.ready(adminPort: admin, api), "api said: \(api.stderr)")
        let longPoll = Task { await SigtermFixture.status("http://127.0.0.1:\(port)/v1/receipts/\(id)?wait=30", token: SigtermFixture.token, timeout: 60) }
        #expect(await eventually(timeout: .seconds(10)) {
            await SigtermFixture.body("http://127.0.0.1:\(admin)/metrics")?.contains("receiptq_api_long_polls_waiting 1") == true
        })
        let slowClient = try LoopbackSocket.connect(port: port, sending: Array("""
            POST /v1/receipts HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(SigtermFixture.token)\r\n\
            Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"receipt_data":
            """.utf8))
        try await Task.sleep(for: .milliseconds(200))
        let stop = await SigtermFixture.terminate(api, "api (a long-poll waiting, a client half-way through a request body)")
        #expect(stop.status == 0, "api said: \(api.stderr)")
        #expect(stop.seconds < Self.bound)
        let answered = await longPoll.value
        #expect(answered == 200, "the long-poll is answered, not cut (\(String(describing: answered))); api said: \(api.stderr)")
        withExtendedLifetime(slowClient) {}
        await fixture.tearDown()
    }

    private func startAPI(_ fixture: SigtermFixture, port: Int, admin: Int) async throws -> ChildProcess {
        try ChildProcess(arguments: [
            "api", "--port", "\(port)", "--admin-port", "\(admin)", "--receipt-check", "off",
            "--database-url", try await fixture.database.connectionString(as: .api),
        ], environment: ["RECEIPTQ_API_TOKENS": SigtermFixture.tokenDigest, "RECEIPTQ_BUNDLE_IDS": SigtermFixture.bundleID,
                         "RECEIPTQ_APP_APPLE_ID": "1234567890", "RECEIPTQ_MIGRATIONS": ScratchDatabase.migrationsDirectory().path])
    }

    // MARK: - receiptq worker

    @Test func idleVerifyReceiptWorkerExitsWithinFiveSeconds() async throws {
        let fixture = try await SigtermFixture.make()
        let fake = try await fixture.startFake()
        defer { fake.process.kill() }
        let admin = try FreePort.pick()
        let worker = try await fixture.startWorker(fake, adminPort: admin, extra: ["--receipt-verifier", "verify-receipt"])
        defer { worker.kill() }
        #expect(await SigtermFixture.ready(adminPort: admin, worker), "worker said: \(worker.stderr)")
        let stop = await SigtermFixture.terminate(worker, "worker, verifyReceipt, idle")
        #expect(stop.status == 0, "worker said: \(worker.stderr)")
        #expect(stop.seconds < Self.bound)
        await fixture.tearDown()
    }

    /// docs/configuration.md: `--webhook-concurrency 0`, this worker delivers no webhooks. Its deliverer returns
    /// at once; the worker keeps running until SIGTERM.
    @Test func workerWithoutWebhookDeliveryRunsAndExitsWithinFiveSeconds() async throws {
        let fixture = try await SigtermFixture.make()
        let fake = try await fixture.startFake()
        defer { fake.process.kill() }
        let admin = try FreePort.pick()
        let worker = try await fixture.startWorker(fake, adminPort: admin, extra: ["--receipt-verifier", "verify-receipt", "--webhook-concurrency", "0"])
        defer { worker.kill() }
        #expect(await SigtermFixture.ready(adminPort: admin, worker), "worker said: \(worker.stderr)")
        try await Task.sleep(for: .seconds(1))
        #expect(worker.process.isRunning, "worker said: \(worker.stderr)")
        let stop = await SigtermFixture.terminate(worker, "worker, verifyReceipt, --webhook-concurrency 0")
        #expect(stop.status == 0, "worker said: \(worker.stderr)")
        #expect(stop.seconds < Self.bound)
        await fixture.tearDown()
    }

    /// The documented drain with its default deadline: claiming stops, Apple (30 s here) is given
    /// until the deadline, and what is still unanswered is released with its attempt given back.
    @Test func verifyReceiptWorkerWithVerificationsInFlightReleasesThemAndExitsWithinFiveSeconds() async throws {
        let fixture = try await SigtermFixture.make()
        let fake = try await fixture.startFake(latency: "30s")
        defer { fake.process.kill() }
        try await fixture.enqueueReceipts(200)
        let admin = try FreePort.pick()
        let worker = try await fixture.startWorker(fake, adminPort: admin, extra: ["--receipt-verifier", "verify-receipt"])
        defer { worker.kill() }
        #expect(try await eventually(timeout: .seconds(30)) {
            try await fixture.count("SELECT count(*) FROM receiptq.jobs WHERE state = 'verifying'") >= 20
        }, "worker said: \(worker.stderr)")
        try await Task.sleep(for: .milliseconds(500))   // the requests are at the fake
        let stop = await SigtermFixture.terminate(worker, "worker, verifyReceipt, verifications in flight (Apple answering in 30 s)")
        #expect(stop.status == 0, "worker said: \(worker.stderr)")
        #expect(stop.seconds < Self.bound)
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.jobs WHERE state = 'verifying'") == 0)
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.jobs WHERE state = 'queued' AND attempts = 0") == 200,
                "every job released unanswered, its attempt given back")
        await fixture.tearDown()
    }

    /// `./Deploy/dev run`'s worker: verifyReceipt for receipts, the Server API (with its key) for
    /// transaction ids and consumption requests, notifications, webhooks.
    @Test func idleWorkerWithServerAPICredentialsExitsWithinFiveSeconds() async throws {
        let fixture = try await SigtermFixture.make()
        let fake = try await fixture.startFake()
        defer { fake.process.kill() }
        let admin = try FreePort.pick()
        let worker = try await fixture.startWorker(fake, adminPort: admin,
                                                   extra: ["--receipt-verifier", "verify-receipt"] + fixture.serverAPIArguments(fake))
        defer { worker.kill() }
        #expect(await SigtermFixture.ready(adminPort: admin, worker), "worker said: \(worker.stderr)")
        let stop = await SigtermFixture.terminate(worker, "worker, verifyReceipt + Server API credentials, idle")
        #expect(stop.status == 0, "worker said: \(worker.stderr)")
        #expect(stop.seconds < Self.bound)
        await fixture.tearDown()
    }

    @Test func serverAPIWorkerWithLookupsInFlightReleasesThemAndExitsWithinFiveSeconds() async throws {
        let fixture = try await SigtermFixture.make()
        let fake = try await fixture.startFake(apiLatency: "30s")
        defer { fake.process.kill() }
        try await fixture.owner.query("""
            INSERT INTO receiptq.jobs (kind, transaction_id, user_id) SELECT 'transaction_id', 'x' || g, 'u' FROM generate_series(1, 50) g
            """)
        let admin = try FreePort.pick()
        // With credentials and no --receipt-verifier, receipts too go through the Server API.
        let worker = try await fixture.startWorker(fake, adminPort: admin, extra: fixture.serverAPIArguments(fake))
        defer { worker.kill() }
        #expect(try await eventually(timeout: .seconds(30)) {
            try await fixture.count("SELECT count(*) FROM receiptq.jobs WHERE state = 'verifying'") >= 1
        }, "worker said: \(worker.stderr)")
        try await Task.sleep(for: .milliseconds(500))
        let stop = await SigtermFixture.terminate(worker, "worker, Server API, lookups in flight (Apple answering in 30 s)")
        #expect(stop.status == 0, "worker said: \(worker.stderr)")
        #expect(stop.seconds < Self.bound)
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.jobs WHERE state = 'verifying'") == 0)
        await fixture.tearDown()
    }

    /// With App Store Server API credentials the worker also walks history syncs, checks
    /// subscriptions' status and beats its heartbeat: a walk waiting for Transaction History v2 and a
    /// check waiting for Get All Subscription Statuses (Apple answering in 30 s) are released, and
    /// the worker's heartbeat row is gone.
    @Test func serverAPIWorkerWithAHistorySyncAndAStatusCheckInFlightExitsWithinFiveSeconds() async throws {
        try await historySyncAndStatusCheck(apiLatency: "30s", label: "a history sync and a status check in flight (Apple answering in 30 s)")
    }

    /// The same, the two waiting for the fleet's rate budget instead: Apple paused both endpoints
    /// (a 429 with an hour's Retry-After, as the fleet keeps it in `receiptq.api_rate_budgets`).
    @Test func serverAPIWorkerWithAHistorySyncAndAStatusCheckWaitingForTheRateBudgetExitsWithinFiveSeconds() async throws {
        try await historySyncAndStatusCheck(apiLatency: "0", pausedForAnHour: true,
                                            label: "a history sync and a status check waiting for the rate budget (paused 1 h)")
    }

    private func historySyncAndStatusCheck(apiLatency: String, pausedForAnHour: Bool = false, label: String) async throws {
        let fixture = try await SigtermFixture.make()
        let fake = try await fixture.startFake(apiLatency: apiLatency)
        defer { fake.process.kill() }
        try await fixture.owner.query("""
            INSERT INTO receiptq.history_syncs (original_transaction_id, environment, user_id, reason) VALUES ('2000000000001', 'Production', 'u', 'request')
            """)
        try await fixture.owner.query("""
            INSERT INTO receiptq.subscriptions (original_transaction_id, environment, user_id, signed_at, reconcile_at)
            VALUES ('2000000000002', 'Production', 'u', now(), now() - interval '1 minute')
            """)
        if pausedForAnHour {
            try await fixture.owner.query("""
                INSERT INTO receiptq.api_rate_budgets (bundle_id, endpoint, environment, rate_per_second, capacity, tokens, refilled_at, paused_until)
                SELECT $1, endpoint, 'Production', 50, 10, 0, now(), now() + interval '1 hour'
                FROM unnest(ARRAY['get_transaction_history', 'get_all_subscription_statuses', 'get_all_subscription_statuses.reconciliation']) AS endpoint
                """, [SigtermFixture.bundleID])
        }
        let admin = try FreePort.pick()
        let worker = try await fixture.startWorker(fake, adminPort: admin,
                                                   extra: ["--receipt-verifier", "verify-receipt"] + fixture.serverAPIArguments(fake))
        defer { worker.kill() }
        #expect(try await eventually(timeout: .seconds(30)) {
            let walking = try await fixture.count("SELECT count(*) FROM receiptq.history_syncs WHERE state = 'syncing'")
            let checking = try await fixture.count("SELECT count(*) FROM receiptq.subscriptions WHERE reconcile_at > now()")
            let beating = try await fixture.count("SELECT count(*) FROM receiptq.worker_heartbeats")
            return walking == 1 && checking == 1 && beating == 1
        }, "worker said: \(worker.stderr)")
        try await Task.sleep(for: .milliseconds(500))   // the requests are at the fake, or waiting for a permit
        let stop = await SigtermFixture.terminate(worker, "worker, Server API, \(label)")
        #expect(stop.status == 0, "worker said: \(worker.stderr)")
        #expect(stop.seconds < Self.bound)
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.history_syncs WHERE state = 'queued' AND attempts = 0") == 1,
                "the walk released, its attempt given back; worker said: \(worker.stderr)")
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.subscriptions WHERE reconciled_at IS NULL") == 1,
                "the check recorded nothing: due again when its claim ends")
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.worker_heartbeats") == 0, "the heartbeat row is gone")
        await fixture.tearDown()
    }

    /// The webhook deliverer runs inside `receiptq worker` (there is no deliverer process): a
    /// receiver that accepts the connection and never answers holds deliveries in flight.
    @Test func workerWithWebhookDeliveriesInFlightReleasesThemAndExitsWithinFiveSeconds() async throws {
        let fixture = try await SigtermFixture.make()
        let receiver = try LoopbackSocket.silentListener()
        let added = try await ChildProcess.run(arguments: [
            "webhooks", "add", "--database-url", fixture.database.connectionString, "--id", "hangs",
            "--url", "http://127.0.0.1:\(receiver.port)/hook",
        ], environment: ["RECEIPTQ_WEBHOOK_SECRETS": "a-secret-of-sixteen-or-more"])
        #expect(added.status == 0, "\(added.stderr)")
        let fake = try await fixture.startFake()
        defer { fake.process.kill() }
        try await fixture.enqueueReceipts(20)
        let admin = try FreePort.pick()
        let worker = try await fixture.startWorker(fake, adminPort: admin, extra: ["--receipt-verifier", "verify-receipt"])
        defer { worker.kill() }
        #expect(try await eventually(timeout: .seconds(30)) {
            try await fixture.count("SELECT count(*) FROM receiptq.deliveries WHERE state = 'delivering'") >= 1
        }, "worker said: \(worker.stderr)")
        try await Task.sleep(for: .milliseconds(500))
        let stop = await SigtermFixture.terminate(worker, "worker, webhook deliveries in flight (receiver never answers)")
        #expect(stop.status == 0, "worker said: \(worker.stderr)")
        #expect(stop.seconds < Self.bound)
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.deliveries WHERE state = 'delivering'") == 0)
        withExtendedLifetime(receiver) {}
        await fixture.tearDown()
    }

    // MARK: - receiptq scheduler

    @Test func schedulerWithoutServerAPIExitsWithinFiveSeconds() async throws {
        let fixture = try await SigtermFixture.make()
        let admin = try FreePort.pick()
        let scheduler = try ChildProcess(arguments: [
            "scheduler", "--database-url", try await fixture.database.connectionString(as: .scheduler), "--admin-port", "\(admin)",
        ], environment: fixture.environment)
        defer { scheduler.kill() }
        #expect(await SigtermFixture.ready(adminPort: admin, scheduler), "scheduler said: \(scheduler.stderr)")
        #expect(await eventually(timeout: .seconds(10)) { scheduler.stderr.contains("scheduler leads") })
        let stop = await SigtermFixture.terminate(scheduler, "scheduler, no Server API")
        #expect(stop.status == 0, "scheduler said: \(scheduler.stderr)")
        #expect(stop.seconds < Self.bound)
        await fixture.tearDown()
    }

    /// The reported bug: after its first notification-history recovery the scheduler slept its
    /// 10-minute interval through SIGTERM.
    @Test func schedulerWithServerAPISleepingBetweenRecoveriesExitsWithinFiveSeconds() async throws {
        let fixture = try await SigtermFixture.make()
        let fake = try await fixture.startFake()
        defer { fake.process.kill() }
        let (admin, scheduler) = try await startScheduler(fixture, fake)
        defer { scheduler.kill() }
        #expect(await SigtermFixture.ready(adminPort: admin, scheduler), "scheduler said: \(scheduler.stderr)")
        #expect(try await eventually(timeout: .seconds(30)) {   // both environments read: the recovery sleeps now
            try await fixture.count("""
                SELECT count(*) FROM receiptq.notification_recovery WHERE last_error IS NULL AND checked_through > now() - interval '1 minute'
                """) == 2
        }, "scheduler said: \(scheduler.stderr)")
        let stop = await SigtermFixture.terminate(scheduler, "scheduler, Server API, recovery sleeping its 10 min interval")
        #expect(stop.status == 0, "scheduler said: \(scheduler.stderr)")
        #expect(stop.seconds < Self.bound)
        await fixture.tearDown()
    }

    /// Stopped while Get Notification History is unanswered: the run is abandoned, not recorded as
    /// failed, and the mark stays where it was, so the next run reads the same window.
    @Test func schedulerWithServerAPIWaitingForNotificationHistoryExitsWithinFiveSeconds() async throws {
        let fixture = try await SigtermFixture.make()
        let fake = try await fixture.startFake(apiLatency: "30s")
        defer { fake.process.kill() }
        let (admin, scheduler) = try await startScheduler(fixture, fake)
        defer { scheduler.kill() }
        #expect(await SigtermFixture.ready(adminPort: admin, scheduler), "scheduler said: \(scheduler.stderr)")
        #expect(try await eventually(timeout: .seconds(30)) {   // a run claimed: it waits for Apple
            try await fixture.count("SELECT count(*) FROM receiptq.notification_recovery WHERE last_run_at IS NOT NULL") >= 1
        }, "scheduler said: \(scheduler.stderr)")
        try await Task.sleep(for: .milliseconds(500))
        let stop = await SigtermFixture.terminate(scheduler, "scheduler, Server API, recovery waiting for Apple (30 s)")
        #expect(stop.status == 0, "scheduler said: \(scheduler.stderr)")
        #expect(stop.seconds < Self.bound)
        #expect(try await fixture.count("""
            SELECT count(*) FROM receiptq.notification_recovery WHERE last_error IS NOT NULL OR checked_through > now() - interval '1 hour'
            """) == 0, "an interrupted run is not a failure and does not move the mark")
        await fixture.tearDown()
    }

    private func startScheduler(_ fixture: SigtermFixture, _ fake: SigtermFixture.Fake) async throws -> (admin: Int, process: ChildProcess) {
        let admin = try FreePort.pick()
        let scheduler = try ChildProcess(arguments: [
            "scheduler", "--database-url", try await fixture.database.connectionString(as: .scheduler), "--admin-port", "\(admin)",
        ] + fixture.serverAPIArguments(fake), environment: fixture.environment)
        return (admin, scheduler)
    }

    // MARK: - receiptq-fake-appstore

    @Test func fakeAppStoreWithARequestInFlightExitsWithinFiveSeconds() async throws {
        let fixture = try await SigtermFixture.make()
        let fake = try await fixture.startFake(latency: "30s")
        defer { fake.process.kill() }
        let receipt = try await fixture.mintReceipt(transaction: "t1")
        let body = "{\"receipt-data\":\"\(receipt)\"}"
        let client = try LoopbackSocket.connect(port: fake.port, sending: Array("""
            POST /production/verifyReceipt HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)
            """.utf8))
        try await Task.sleep(for: .milliseconds(500))
        let stop = await SigtermFixture.terminate(fake.process, "fake-appstore, a verifyReceipt answer pending (30 s)")
        #expect(stop.status == 0, "fake said: \(fake.process.stderr)")
        #expect(stop.seconds < Self.bound)
        withExtendedLifetime(client) {}
        await fixture.tearDown()
    }
}
