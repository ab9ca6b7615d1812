import ReceiptQueue

/// Whether a StoreKit 2 introductory offer eligibility signature allows the offer: the backend's
/// own answer when it gives one, else the ledger's — allowed only to a customer who never owned a
/// subscription in the product's group (Apple's rule is "never had an introductory offer in the
/// group"; the ledger keeps purchases, not which period was an offer, so it asks the stricter
/// question, and a backend that knows better says so in `allow_introductory_offer`).
struct IntroductoryOfferEligibility: Equatable {
    var allow: Bool
    /// `request` (the backend decided) or `ledger`.
    var source: String
    var subscriptionGroup: String?
    var subscribedInGroup: Bool?

    enum Refusal: Error, Equatable {
        /// The ledger cannot decide: the catalog gives the product no subscription group.
        case noSubscriptionGroup
    }

    static func decide(requested: Bool?, history: OfferHistory) throws(Refusal) -> IntroductoryOfferEligibility {
        if let requested {
            return IntroductoryOfferEligibility(allow: requested, source: "request", subscriptionGroup: history.subscriptionGroup)
        }
        guard let group = history.subscriptionGroup else { throw .noSubscriptionGroup }
        return IntroductoryOfferEligibility(allow: !history.subscribedInGroup, source: "ledger", subscriptionGroup: group,
                                            subscribedInGroup: history.subscribedInGroup)
    }
}
