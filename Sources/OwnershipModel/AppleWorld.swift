/// Apple's side of a history, as the model sees it: purchases and their periods, each change
/// numbered as Apple's history numbers modifications, each signed thing numbered in signing order,
/// and the notifications made since the last delivery. The runner makes the same things in the
/// fake App Store and keeps the real ids beside these indices.
public struct AppleWorld: Sendable, Hashable {
    public struct Period: Sendable, Hashable {
        public var product: Product
        /// The order whose appAccountToken Apple signed into it.
        public var token: Int?
        /// Ends within a second of its start (expired by the time a history ends).
        public var short: Bool
        public var revoked = false
        /// An upgrade ended it at once.
        public var upgraded = false
        /// Apple's modification number (Transaction History's order).
        public var modified: Int
    }

    public struct Purchase: Sendable, Hashable {
        /// The Apple account that bought it (or, family-shared, the member who received it).
        public var customer: Int
        public var family: Bool
        public var periods: [Period]

        public var kind: Product.Kind { periods[0].product.kind }
        public var latest: Int { periods.count - 1 }
    }

    /// A transaction: a period of a purchase. A purchase's index is its original transaction.
    public struct Transaction: Sendable, Hashable, Comparable {
        public var purchase: Int
        public var period: Int

        public init(purchase: Int, period: Int) {
            self.purchase = purchase
            self.period = period
        }

        public static func < (a: Self, b: Self) -> Bool { (a.purchase, a.period) < (b.purchase, b.period) }
    }

    /// What Apple signed about a transaction at one moment.
    public struct Signed: Sendable, Hashable {
        public var transaction: Transaction
        public var period: Period
        /// Signing order: later is larger.
        public var at: Int
    }

    public struct Notification: Sendable, Hashable {
        public enum Kind: String, Sendable, Hashable {
            /// ONE_TIME_CHARGE, SUBSCRIBED, DID_RENEW, DID_CHANGE_RENEWAL_PREF UPGRADE.
            case purchase
            case refund
            case reversal
        }

        public var kind: Kind
        public var signed: Signed
    }

    public private(set) var purchases: [Purchase] = []
    /// Made since the last delivery, oldest first.
    public var undelivered: [Notification] = []
    private var modifications = 0
    private var signatures = 0

    public init() {}

    public func purchase(_ index: Int) -> Purchase? { purchases.indices.contains(index) ? purchases[index] : nil }

    /// The transaction `evidence`-style references name: the purchase's `period`, or its last.
    public func transaction(_ purchase: Int, _ period: Int) -> Transaction? {
        guard let p = self.purchase(purchase) else { return nil }
        return Transaction(purchase: purchase, period: min(max(period, 0), p.latest))
    }

    public func period(_ t: Transaction) -> Period { purchases[t.purchase].periods[t.period] }

    /// Apple signs `t` as it stands now.
    public mutating func sign(_ t: Transaction) -> Signed {
        signatures += 1
        return Signed(transaction: t, period: period(t), at: signatures)
    }

    /// Numbers Apple's signing of something the model does not look inside (a receipt).
    public mutating func signingMoment() -> Int {
        signatures += 1
        return signatures
    }

    // MARK: - What Apple does

    public mutating func buy(customer: Int, product: Product, token: Int?, short: Bool) -> Int {
        purchases.append(Purchase(customer: customer, family: false,
                                  periods: [Period(product: product, token: token, short: product.isSubscription && short,
                                                   modified: modify())]))
        notify(.purchase, Transaction(purchase: purchases.count - 1, period: 0))
        return purchases.count - 1
    }

    /// The next period, once the latest has ended; nil when Apple would refuse.
    public mutating func renew(_ index: Int, short: Bool) -> Transaction? {
        guard let p = purchase(index), p.kind == .autoRenewable, !p.periods[p.latest].revoked, p.periods[p.latest].short else { return nil }
        var next = p.periods[p.latest]
        next.short = short
        next.upgraded = false
        next.modified = modify()
        purchases[index].periods.append(next)
        let t = Transaction(purchase: index, period: p.periods.count)
        notify(.purchase, t)
        return t
    }

    /// Up to premium now, for as long as the latest period lasted; nil when Apple would refuse.
    public mutating func upgrade(_ index: Int, token: Int?) -> Transaction? {
        guard let p = purchase(index), !p.family, p.kind == .autoRenewable, !p.periods[p.latest].revoked,
              p.periods[p.latest].product == .basic else { return nil }
        var next = p.periods[p.latest]
        purchases[index].periods[p.latest].upgraded = true
        purchases[index].periods[p.latest].modified = modify()
        next.product = .premium
        next.token = token ?? next.token
        next.modified = modify()
        purchases[index].periods.append(next)
        let t = Transaction(purchase: index, period: p.periods.count)
        notify(.purchase, t)
        return t
    }

    /// A family member's own copy of the latest period; nil when Apple would refuse.
    public mutating func share(_ index: Int, member: Int) -> Int? {
        guard let p = purchase(index), !p.family, p.kind != .consumable, p.customer != member else { return nil }
        var copy = p.periods[p.latest]
        copy.token = nil
        copy.upgraded = false
        copy.modified = modify()
        purchases.append(Purchase(customer: member, family: true, periods: [copy]))
        notify(.purchase, Transaction(purchase: purchases.count - 1, period: 0))
        return purchases.count - 1
    }

    public mutating func refund(_ index: Int) -> Transaction? {
        guard let p = purchase(index), !p.periods[p.latest].revoked else { return nil }
        purchases[index].periods[p.latest].revoked = true
        purchases[index].periods[p.latest].modified = modify()
        let t = Transaction(purchase: index, period: p.latest)
        notify(.refund, t)
        return t
    }

    public mutating func reverse(_ index: Int) -> Transaction? {
        guard let p = purchase(index), p.periods[p.latest].revoked else { return nil }
        purchases[index].periods[p.latest].revoked = false
        purchases[index].periods[p.latest].modified = modify()
        let t = Transaction(purchase: index, period: p.latest)
        notify(.reversal, t)
        return t
    }

    /// Every transaction of `customer` modified after `revision`, in Apple's history order, and
    /// the revision after them.
    public func history(of customer: Int, after revision: Int) -> (transactions: [Transaction], revision: Int) {
        var changed: [(Int, Transaction)] = []
        for (index, p) in purchases.enumerated() where p.customer == customer {
            for (k, period) in p.periods.enumerated() where period.modified > revision {
                changed.append((period.modified, Transaction(purchase: index, period: k)))
            }
        }
        changed.sort { $0.0 < $1.0 }
        return (changed.map(\.1), max(revision, changed.last?.0 ?? revision, modifications))
    }

    private mutating func modify() -> Int {
        modifications += 1
        return modifications
    }

    private mutating func notify(_ kind: Notification.Kind, _ t: Transaction) {
        undelivered.append(Notification(kind: kind, signed: sign(t)))
    }
}
