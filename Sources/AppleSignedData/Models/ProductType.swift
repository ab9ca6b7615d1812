/// A transaction's `type`: what kind of in-app purchase was bought.
public enum ProductType: OpenStringEnum {
    case consumable
    case nonConsumable
    case autoRenewableSubscription
    case nonRenewingSubscription
    /// A spelling Apple added after this code was written.
    case unknown(String)

    public init(rawValue: String) {
        switch rawValue {
        case "Consumable": self = .consumable
        case "Non-Consumable": self = .nonConsumable
        case "Auto-Renewable Subscription": self = .autoRenewableSubscription
        case "Non-Renewing Subscription": self = .nonRenewingSubscription
        default: self = .unknown(rawValue)
        }
    }

    public var rawValue: String {
        switch self {
        case .consumable: "Consumable"
        case .nonConsumable: "Non-Consumable"
        case .autoRenewableSubscription: "Auto-Renewable Subscription"
        case .nonRenewingSubscription: "Non-Renewing Subscription"
        case .unknown(let value): value
        }
    }
}
