import Foundation
import Postgres
import ReceiptQueue
import ReceiptQueueTesting
import Testing
import WebhookReceiver
import WebhookSignature

/// `receiptq webhooks test ENDPOINT` as a backend developer uses it: one signed `webhook.test`
/// event to the endpoint now, the receiver's answer printed, and the outbox left alone.
@Suite("Webhooks: receiptq webhooks test", .timeLimit(.minutes(2)))
struct WebhookTestCommandTests {
    static func runTest(_ e2e: EndToEnd, _ endpoint: String) async throws -> (status: Int32?, stdout: String, stderr: String) {
        try await ChildProcess.run(arguments: ["webhooks", "test", endpoint, "--database-url", e2e.database.connectionString, "--timeout", "5s"])
    }

    /// The deliveries of real events, as the deliverers see them.
    static func outbox(_ e2e: EndToEnd) async throws -> [String] {
        try await e2e.pool.query("""
            SELECT endpoint_id || ' ' || event_sequence || ' ' || state || ' ' || attempts || ' ' || run_at AS row
            FROM receiptq.deliveries ORDER BY endpoint_id, event_sequence
            """).map { try $0.decode("row", as: String.self) }
    }

    @Test func aSignedTestEventReachesTheReceiverAndItsAnswerIsPrintedWithoutTouchingTheOutbox() async throws {
        let e2e = try await EndToEnd.make(fake: WebhookTests.fast)
        let secrets = [WebhookSecret.generate(), "whsec_test_0123456789abcdef"]   // mid-rotation: a new secret and an old raw one
        let receiver = try await WebhookReceiver.start(secrets: [secrets[1]])
        try await e2e.pool.withConnection { try UpsertWebhookEndpoint.run(WebhookEndpoint(id: "backend", url: receiver.url, secrets: secrets), on: $0) }
        // Real events waiting for this endpoint (no deliverer runs): their order and attempts must not move.
        _ = try await WebhookTests.appendEvents(e2e, count: 3, users: 2)
        let before = try await Self.outbox(e2e)
        #expect(before.count == 3)

        let run = try await Self.runTest(e2e, "backend")
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.contains("to backend (\(receiver.url)): HTTP 200 in "), "\(run.stdout)")
        #expect(run.stdout.contains("acknowledged"))
        let received = try #require(receiver.acknowledged.first)
        #expect(receiver.acknowledged.count == 1 && receiver.refusedSignatures == 0)
        #expect(received.type == "webhook.test" && received.sequence == 0 && received.userID == "")
        #expect(run.stdout.contains(received.id))
        #expect(try await Self.outbox(e2e) == before)
        #expect(try await e2e.count("SELECT count(*) FROM receiptq.events") == 3)
        #expect(!run.stdout.contains(secrets[0]) && !run.stderr.contains(secrets[0]))
        await receiver.stop()
        await e2e.shutdown()
    }

    @Test func aRefusalAnUnknownEndpointAndADownReceiverAreReportedAndExitNonZero() async throws {
        let e2e = try await EndToEnd.make(fake: WebhookTests.fast)
        let receiver = try await WebhookReceiver.start(secrets: [WebhookSecret.generate()])   // not the endpoint's secret
        try await e2e.pool.withConnection {
            try UpsertWebhookEndpoint.run(WebhookEndpoint(id: "backend", url: receiver.url, secrets: [WebhookSecret.generate()]), on: $0)
        }
        let refused = try await Self.runTest(e2e, "backend")
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("HTTP 401") && refused.stdout.contains("refused the signature"), "\(refused.stdout)")
        #expect(receiver.refusedSignatures == 1)

        let unknown = try await Self.runTest(e2e, "nobody")
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("no webhook endpoint nobody (endpoints: backend)"), "\(unknown.stderr)")

        await receiver.down()
        let down = try await Self.runTest(e2e, "backend")
        #expect(down.status == 1)
        #expect(down.stdout.contains("no answer after"), "\(down.stdout)")
        await e2e.shutdown()
    }
}
