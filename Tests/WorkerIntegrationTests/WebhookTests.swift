import FakeAppStore
import Foundation
import Postgres
import ReceiptQueue
import ReceiptQueueTesting
import Testing
import WebhookReceiver
import Worker

/// Outcomes pushed to backends: one event per verdict, written with the change, delivered signed,
/// at least once, in order per user, through a receiver that fails and goes down.
@Suite("Webhooks: events pushed to the backend", .timeLimit(.minutes(3)))
struct WebhookTests {
    static let secret = "whsec_test_0123456789abcdef"
    static let fast = FakeAppStoreConfiguration(latency: FakeDurationRange(lower: .milliseconds(10), upper: .milliseconds(40)))

    static func endpoint(_ receiver: WebhookReceiver, id: String = "backend") -> WebhookEndpoint {
        WebhookEndpoint(id: id, url: receiver.url, secrets: [secret])
    }

    @Test func everyVerdictProducesExactlyOneEventWrittenWithItAndDeliveredSigned() async throws {
        let e2e = try await EndToEnd.make(fake: Self.fast)
        let receiver = try await WebhookReceiver.start(secrets: [Self.secret])
        try await e2e.pool.withConnection { try UpsertWebhookEndpoint.run(Self.endpoint(receiver), on: $0) }
        let worker = e2e.startWorker(e2e.workerConfiguration(name: "w"))
        let deliverer = e2e.startDeliverer()
        let jobs = [
            NewJob(receiptData: EndToEnd.receipt([("t1", "coins")]), transactionID: "t1", userID: "ann"),              // delivered
            NewJob(receiptData: EndToEnd.receipt([("t1", "coins"), ("x", "coins")]), transactionID: "t1", userID: "ann"),  // already
            NewJob(receiptData: EndToEnd.receipt([("t2", "coins")], forcedStatus: 21003), transactionID: "t2", userID: "bob"),  // not paid
            NewJob(receiptData: EndToEnd.receipt([("other", "coins")]), transactionID: "t3", userID: "cy"),            // resubmit
        ]
        let ids = try await e2e.queue.enqueue(jobs).map(\.id)
        #expect(try await e2e.waitUntilDrained(timeout: .seconds(20)))
        #expect(await eventually(timeout: .seconds(20)) { receiver.acknowledged.count == 4 })
        let types = Dictionary(grouping: receiver.acknowledged, by: \.type).mapValues(\.count)
        #expect(types == ["verdict.delivered": 1, "verdict.already_delivered": 1, "verdict.not_paid": 1, "verdict.resubmit": 1])
        #expect(receiver.refusedSignatures == 0)
        // In the database: one event per terminal job, none for anything else.
        #expect(try await e2e.count("SELECT count(*) FROM receiptq.events") == 4)
        #expect(try await e2e.count("SELECT count(DISTINCT job_id) FROM receiptq.events WHERE job_id = ANY($1)", [ids]) == 4)
        // The receiver acknowledges before the deliverer hears the answer and records it.
        #expect(await eventually(timeout: .seconds(10)) {
            (try? await e2e.count("SELECT count(*) FROM receiptq.deliveries WHERE state = 'delivered'")) == 4
        })
        try await deliverer.stop()
        try await worker.stop()
        await receiver.stop()
        await e2e.shutdown()
    }

    /// `count` terminal jobs of `users` users, with their events, as workers would leave them.
    static func appendEvents(_ e2e: EndToEnd, count: Int, users: Int) async throws -> [Int64] {
        let ids = try await e2e.queue.enqueue((0..<count).map {
            NewJob(receiptData: "r\($0)", transactionID: "t\($0)", userID: "user-\($0 % users)")
        }).map(\.id)
        for chunk in stride(from: 0, to: ids.count, by: 100) {
            let slice = Array(ids[chunk..<min(chunk + 100, ids.count)])
            try await e2e.pool.transaction { connection in
                try connection.query("""
                    UPDATE receiptq.jobs SET state = 'rejected', outcome_reason = 'test', finished_at = now() WHERE id = ANY($1)
                    """, [slice])
                try AppendJobEvents.run(jobs: slice, on: connection)
            }
        }
        return ids
    }

    @Test func perUserOrderHoldsUnderRandomReceiverFailuresAndEveryEventArrives() async throws {
        let e2e = try await EndToEnd.make(fake: Self.fast)
        let receiver = try await WebhookReceiver.start(secrets: [Self.secret], behaviour: .init(failureRate: 0.3))
        try await e2e.pool.withConnection { try UpsertWebhookEndpoint.run(Self.endpoint(receiver), on: $0) }
        let deliverers = [e2e.startDeliverer(name: "d1"), e2e.startDeliverer(name: "d2")]
        _ = try await Self.appendEvents(e2e, count: 1000, users: 40)
        #expect(await eventually(timeout: .seconds(90), every: .milliseconds(250)) { Set(receiver.acknowledged.map(\.id)).count == 1000 })
        #expect(receiver.answeredFailures > 100)                        // the receiver really failed
        for (user, received) in Dictionary(grouping: receiver.acknowledged, by: \.userID) {
            let sequences = received.map(\.sequence)
            #expect(sequences == sequences.sorted(), "user \(user) received out of order")
        }
        // Duplicates only ever carry the same event id (at least once, never a new id).
        #expect(receiver.acknowledged.count >= 1000)
        for deliverer in deliverers { try await deliverer.stop() }
        await receiver.stop()
        await e2e.shutdown()
    }

    @Test func aReceiverDownThenFailingGetsEverythingOnceItRecoversWithoutARetryStorm() async throws {
        let e2e = try await EndToEnd.make(fake: Self.fast)
        let receiver = try await WebhookReceiver.start(secrets: [Self.secret])
        try await e2e.pool.withConnection { try UpsertWebhookEndpoint.run(Self.endpoint(receiver), on: $0) }
        await receiver.down()                                          // connections refused
        let deliverer = e2e.startDeliverer()
        _ = try await Self.appendEvents(e2e, count: 200, users: 200)
        try await Task.sleep(for: .seconds(2))
        try await receiver.up()
        receiver.behave(.init(forcedStatus: 503))                        // up, but failing
        try await Task.sleep(for: .seconds(3))
        let failuresWhileFailing = receiver.answeredFailures
        // 200 deliveries pending for 3 s: the endpoint's breaker lets a probe through now and then, not all 200 again and again.
        #expect(failuresWhileFailing < 60, "\(failuresWhileFailing) deliveries sent to a failing receiver in 3 s")
        receiver.behave(.init())
        #expect(await eventually(timeout: .seconds(60), every: .milliseconds(250)) { Set(receiver.acknowledged.map(\.id)).count == 200 })
        // The deliverer records an acknowledgement after the receiver has answered it.
        #expect(await eventually(timeout: .seconds(30), every: .milliseconds(250)) {
            (try? await e2e.count("SELECT count(*) FROM receiptq.deliveries WHERE state = 'delivered'")) == 200
        })
        #expect(try await e2e.count("SELECT count(*) FROM receiptq.deliveries WHERE attempts > 1") > 0)
        try await deliverer.stop()
        await receiver.stop()
        await e2e.shutdown()
    }

    @Test func aDeliveryPastItsDeadlineIsFailedVisibleAndReDrivable() async throws {
        let e2e = try await EndToEnd.make(fake: Self.fast)
        let receiver = try await WebhookReceiver.start(secrets: [Self.secret], behaviour: .init(forcedStatus: 500))
        try await e2e.pool.withConnection { try UpsertWebhookEndpoint.run(Self.endpoint(receiver), on: $0) }
        _ = try await Self.appendEvents(e2e, count: 3, users: 3)
        try await e2e.pool.query("UPDATE receiptq.deliveries SET budget_from = now() - interval '73 hours'")
        let deliverer = e2e.startDeliverer()
        #expect(try await eventually(timeout: .seconds(20)) {
            try await e2e.count("SELECT count(*) FROM receiptq.deliveries WHERE state = 'failed'") == 3
        })
        #expect(try await e2e.count("SELECT failed AS count FROM receiptq.webhook_health WHERE endpoint_id = 'backend'") == 3)
        receiver.behave(.init())
        #expect(try await e2e.pool.withConnection { try RedriveFailedDeliveries.run(endpoint: "backend", on: $0) } == 3)
        try await e2e.pool.query("SELECT pg_notify('receiptq_events', '')")
        #expect(await eventually(timeout: .seconds(20)) { receiver.acknowledged.count == 3 })
        try await deliverer.stop()
        await receiver.stop()
        await e2e.shutdown()
    }

    @Test func aForgedOrForeignSignatureIsWhatTheReceiverRefuses() async throws {
        let e2e = try await EndToEnd.make(fake: Self.fast)
        let receiver = try await WebhookReceiver.start(secrets: ["the-receivers-own-secret-0123"])
        try await e2e.pool.withConnection { try UpsertWebhookEndpoint.run(Self.endpoint(receiver), on: $0) }   // signs with another secret
        let deliverer = e2e.startDeliverer()
        _ = try await Self.appendEvents(e2e, count: 1, users: 1)
        #expect(await eventually(timeout: .seconds(10)) { receiver.refusedSignatures > 0 })
        #expect(receiver.acknowledged.isEmpty)
        try await deliverer.stop()
        await receiver.stop()
        await e2e.shutdown()
    }
}
