/// One generated history: what Apple, the app's users, its backend and its operators do, in order.
/// Every step names what it acts on by its place among what the history made before (the third
/// purchase, its second period); a step whose subject does not exist — the shrinker removed the
/// step that made it — does nothing, in the model and in the runner alike. So every part of a
/// history is a history, and a failing one shrinks step by step.
public struct History: Sendable, Hashable, Codable {
    public var seed: UInt64
    public var steps: [Step]

    public init(seed: UInt64, steps: [Step]) {
        self.seed = seed
        self.steps = steps
    }
}

/// The app's catalog in a history: a consumable, a non-consumable, and two auto-renewable
/// subscriptions of one group (premium above basic).
public enum Product: String, Sendable, Hashable, Codable, CaseIterable {
    case coins
    case pro
    case basic
    case premium

    public enum Kind: String, Sendable, Hashable, Codable {
        case consumable
        case nonConsumable = "non_consumable"
        case autoRenewable = "auto_renewable"
    }

    public var kind: Kind {
        switch self {
        case .coins: .consumable
        case .pro: .nonConsumable
        case .basic, .premium: .autoRenewable
        }
    }

    public var isSubscription: Bool { kind == .autoRenewable }
}

public enum Step: Sendable, Hashable, Codable {
    /// The backend registers an order (with a fresh appAccountToken) for `user`.
    case order(user: Int, product: Product)
    /// Apple: `customer` buys `product`, carrying the token of `order` when given (the app passed
    /// it to StoreKit). A subscription's first period is `short` (ends within a second) or long.
    case buy(customer: Int, product: Product, order: Int?, short: Bool)
    /// Apple: the next period of subscription `purchase` (only after its latest period ended).
    case renew(purchase: Int, short: Bool)
    /// Apple: subscription `purchase` moves up to premium now, carrying `order`'s token if given.
    case upgrade(purchase: Int, order: Int?)
    /// Apple: `purchase` (a non-consumable or subscription) is family-shared with `member`.
    case share(purchase: Int, member: Int)
    /// Apple refunds the latest period of `purchase`.
    case refund(purchase: Int)
    /// Apple reverses the refund of `purchase`'s latest period.
    case reverse(purchase: Int)
    /// Apple's notifications made since the last delivery reach the API, as `delivery` says.
    case deliver(Delivery)
    /// The app sends `evidence` for `user`.
    case submit(user: Int, evidence: Evidence)
    /// The app asks to restore `purchase`'s original transaction for `user` (a history sync).
    case restore(user: Int, purchase: Int)
    /// Support grants `product` to `user` by hand (a subscription for 30 days).
    case supportGrant(user: Int, product: Product)
    /// Support revokes the newest grant of `purchase`'s original transaction.
    case supportRevoke(purchase: Int)
    /// Support moves `purchase`'s original transaction to `user`.
    case supportTransfer(purchase: Int, to: Int)
}

/// What an app can send about a transaction: the purchase's `period` (0 first; beyond the last:
/// the last).
public enum Evidence: Sendable, Hashable, Codable {
    /// StoreKit 2's signed transaction, as Apple signs it now.
    case signed(purchase: Int, period: Int)
    /// An app receipt holding the purchase's periods `from` through `through`, naming `period`.
    case receipt(purchase: Int, from: Int, through: Int, period: Int)
    /// A bare transaction id, from a backend token trusted for claims or not.
    case claim(purchase: Int, period: Int, trusted: Bool)
}

/// How a batch of Apple's notifications reaches the API.
public enum Delivery: String, Sendable, Hashable, Codable, CaseIterable {
    /// Each once, in the order Apple made them.
    case inOrder
    /// Each once, newest first.
    case reversed
    /// The first one is lost for good; the rest in order.
    case dropFirst
    /// Each in order, then the first one again.
    case duplicateFirst
}
