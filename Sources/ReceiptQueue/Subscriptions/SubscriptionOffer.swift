import Foundation

/// The offer a subscription period was bought or renewed with (Apple's `offerType` and
/// `offerIdentifier`).
public struct SubscriptionOffer: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable {
        /// 1: an introductory offer (free trial, pay as you go, pay up front).
        case introductory
        /// 2: a promotional offer the app presented.
        case promotional
        /// 3: an offer code the customer redeemed.
        case offerCode = "offer_code"
        /// 4: a win-back offer.
        case winBack = "win_back"
        case other

        public init(apple: Int) {
            switch apple {
            case 1: self = .introductory
            case 2: self = .promotional
            case 3: self = .offerCode
            case 4: self = .winBack
            default: self = .other
            }
        }
    }

    public var kind: Kind
    /// The offer's identifier (promotional offers, offer codes, win-back); nil for introductory.
    public var id: String?

    public init(kind: Kind, id: String?) {
        self.kind = kind
        self.id = id
    }

    /// From Apple's `offerType` and `offerIdentifier`; nil when no offer applies.
    public init?(appleType: Int?, id: String?) {
        guard let appleType else { return nil }
        self.init(kind: Kind(apple: appleType), id: id)
    }
}

/// The customer's answer to a price increase that needs consent (Apple's `priceIncreaseStatus`).
public enum PriceIncreaseConsent: String, Sendable, Hashable, Codable {
    /// 0: Apple asked; no answer yet. Without consent the subscription expires at renewal.
    case pending
    /// 1: agreed, or the increase needs no consent.
    case agreed

    public init?(apple: Int?) {
        switch apple {
        case 0: self = .pending
        case 1: self = .agreed
        default: return nil
        }
    }
}
