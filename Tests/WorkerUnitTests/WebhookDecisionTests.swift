import Foundation
import ReceiptQueue
import Testing
import WebhookSignature
import Worker

@Suite("Webhooks: signatures a backend can check, and what an answer means")
struct WebhookDecisionTests {
    let body = Array(#"{"id":"e1","type":"verdict.delivered"}"#.utf8)
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aSignedDeliveryVerifiesWithTheSecretAndOnlyWithIt() throws {
        let header = WebhookSignature.sign(body: body, secrets: ["whsec_0123456789abcdef"], timestamp: 1_800_000_000)
        #expect(header.hasPrefix("t=1800000000,v1="))
        try WebhookSignature.verify(header: header, body: body, secrets: ["whsec_0123456789abcdef"], now: now)
        #expect(throws: WebhookSignature.Failure.noMatchingSignature) {
            try WebhookSignature.verify(header: header, body: body, secrets: ["whsec_another_secret_xx"], now: now)
        }
        #expect(throws: WebhookSignature.Failure.noMatchingSignature) {
            try WebhookSignature.verify(header: header, body: body + [32], secrets: ["whsec_0123456789abcdef"], now: now)
        }
    }

    @Test func duringARotationEitherSecretVerifies() throws {
        let header = WebhookSignature.sign(body: body, secrets: ["new-secret-0123456789", "old-secret-0123456789"], timestamp: 1_800_000_000)
        try WebhookSignature.verify(header: header, body: body, secrets: ["old-secret-0123456789"], now: now)
        try WebhookSignature.verify(header: header, body: body, secrets: ["new-secret-0123456789"], now: now)
    }

    @Test func anOldOrMalformedSignatureIsRefused() {
        let header = WebhookSignature.sign(body: body, secrets: ["whsec_0123456789abcdef"], timestamp: 1_800_000_000)
        #expect(throws: WebhookSignature.Failure.tooOld) {
            try WebhookSignature.verify(header: header, body: body, secrets: ["whsec_0123456789abcdef"], now: now.addingTimeInterval(301))
        }
        for bad in ["", "v1=abc", "t=1800000000", "t=x,v1=zz", "garbage"] {
            #expect(throws: WebhookSignature.Failure.self) {
                try WebhookSignature.verify(header: bad, body: body, secrets: ["whsec_0123456789abcdef"], now: now)
            }
        }
    }

    static func lease(attempt: Int = 1, made: Date) -> DeliveryLease {
        DeliveryLease(endpointID: "backend", eventSequence: 1, eventID: "e1", attempt: attempt, userID: "u", body: [],
                      url: "https://example.com/hooks", secrets: ["s"], budgetFrom: made)
    }

    @Test(arguments: [200, 201, 202, 204, 299])
    func any2xxIsAnAcknowledgement(_ status: Int) {
        var random = SystemRandomNumberGenerator()
        let (result, failed) = DeliveryDecision().decide(.status(status), lease: Self.lease(made: now), now: now, using: &random)
        #expect(result == .delivered(status: status))
        #expect(!failed)
    }

    @Test(arguments: [DeliveryDecision.Answer.status(500), .status(503), .status(404), .status(401), .status(301), .transportError("refused")])
    func everythingElseIsRetriedWithBackoffAndCountsAgainstTheEndpoint(_ answer: DeliveryDecision.Answer) {
        var random = SystemRandomNumberGenerator()
        let (result, failed) = DeliveryDecision().decide(answer, lease: Self.lease(attempt: 3, made: now), now: now, using: &random)
        guard case .retry(let delay, _, _) = result else { Issue.record("expected a retry, got \(result)"); return }
        #expect(delay >= 10_000 && delay <= 20_000)   // 5 s doubled twice, with jitter in the upper half
        #expect(failed)
    }

    @Test func aDeliveryIsGivenUpAfterThreeDaysIntoFailed() {
        var random = SystemRandomNumberGenerator()
        let made = now.addingTimeInterval(-72 * 3600)
        guard case .failed(let status, let error) = DeliveryDecision().decide(.status(503), lease: Self.lease(attempt: 60, made: made),
                                                                               now: now, using: &random).result else {
            Issue.record("expected failed"); return
        }
        #expect(status == 503)
        #expect(error.contains("72 h"))
    }

    @Test func eachVerdictHasItsEventType() {
        #expect(EventType(finished: .granted, verdict: .delivered) == .delivered)
        #expect(EventType(finished: .alreadyGranted, verdict: .alreadyDelivered) == .alreadyDelivered)
        #expect(EventType(finished: .ownedElsewhere, verdict: .ownedByAnotherUser) == .ownedByAnotherUser)
        #expect(EventType(finished: .alreadyGranted, verdict: .ownedByAnotherUser) == .ownedByAnotherUser)
        #expect(EventType(finished: .granted, verdict: .revoked) == .revoked)
        #expect(EventType(finished: .rejected, verdict: .notPaid) == .notPaid)
        #expect(EventType(finished: .resubmit, verdict: .resubmit) == .resubmit)
        #expect(EventType(finished: .failed, verdict: .pending) == .jobFailed)
    }
}
