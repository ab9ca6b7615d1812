@testable import API
import ReceiptQueue
import Testing

/// Who may have an introductory offer: the backend's word when it gives one, else the ledger's
/// stricter "never owned a subscription in the group"; no group in the catalog, no ledger answer.
@Suite("Introductory offer eligibility")
struct IntroductoryOfferEligibilityTests {
    static func history(group: String?, subscribed: Bool) -> OfferHistory {
        OfferHistory(subscriptionGroup: group, subscribedInGroup: subscribed, latestOriginalTransactionId: nil, namedTransactionOwner: nil)
    }

    @Test(arguments: [
        // requested, group, subscribed in group → allow, source
        (Bool?.none, "pro", false, true, "ledger"),
        (nil, "pro", true, false, "ledger"),
        (true, "pro", true, true, "request"),
        (false, "pro", false, false, "request"),
        (true, nil, false, true, "request"),
    ] as [(Bool?, String?, Bool, Bool, String)])
    func decides(requested: Bool?, group: String?, subscribed: Bool, allow: Bool, source: String) throws {
        let decision = try IntroductoryOfferEligibility.decide(requested: requested, history: Self.history(group: group, subscribed: subscribed))
        #expect(decision.allow == allow)
        #expect(decision.source == source)
        #expect(decision.subscriptionGroup == group)
    }

    @Test func withoutAGroupTheLedgerCannotDecide() {
        #expect(throws: IntroductoryOfferEligibility.Refusal.noSubscriptionGroup) {
            try IntroductoryOfferEligibility.decide(requested: nil, history: Self.history(group: nil, subscribed: true))
        }
    }
}
