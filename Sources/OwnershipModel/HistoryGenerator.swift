/// Seeded random histories over every path a purchase travels: orders with tokens, purchases of
/// each kind (a subscription's first period short or long), renewals, upgrades bought with
/// another order's token, family sharing, refunds and reversals, Apple's notifications delivered
/// in order, reversed, with one lost or one twice, submissions of signed transactions, receipts
/// holding any run of a subscription's periods and bare transaction ids (trusted or not) by any
/// user — attackers replaying whatever exists — restores, and support's grants, revocations and
/// transfers. The same seed always makes the same history.
public struct HistoryGenerator: Sendable {
    public var users: Int
    public var customers: Int
    public var steps: ClosedRange<Int>

    public init(users: Int = 4, customers: Int = 2, steps: ClosedRange<Int> = 12...32) {
        self.users = users
        self.customers = customers
        self.steps = steps
    }

    public func history(seed: UInt64) -> History {
        var random = SplitMix64(seed: seed)
        var model = OwnershipReference(users: users, customers: customers)
        var steps: [Step] = []
        let count = random.int(in: self.steps)
        while steps.count < count {
            let step = next(&random, model)
            model.apply(step, at: steps.count)
            steps.append(step)
        }
        return History(seed: seed, steps: steps)
    }

    /// One step that makes sense in the world so far (most of the time: a step naming something
    /// gone is harmless, and the shrinker makes those anyway).
    func next(_ random: inout SplitMix64, _ model: OwnershipReference) -> Step {
        let world = model.world
        let purchases = world.purchases.indices
        let subscriptions = purchases.filter { world.purchases[$0].kind == .autoRenewable }
        let orders = model.ledger.orders.count
        func anyOrder() -> Int? { orders > 0 && random.chance(0.6) ? random.int(in: 0...(orders - 1)) : nil }
        func anyPurchase() -> Int? { purchases.isEmpty ? nil : random.pick(Array(purchases)) }
        let user = random.int(in: 0...(users - 1))

        switch random.weighted([("order", 8), ("buy", 12), ("renew", 8), ("upgrade", 4), ("share", 3), ("refund", 5), ("reverse", 3),
                                ("deliver", 10), ("submit", 32), ("restore", 4), ("grant", 2), ("revoke", 2), ("transfer", 3)]) {
        case "order":
            return .order(user: user, product: random.pick(Product.allCases))
        case "buy":
            let product = random.pick(Product.allCases)
            return .buy(customer: random.chance(0.75) ? 0 : random.int(in: 0...(customers - 1)), product: product, order: anyOrder(),
                        short: random.chance(0.5))
        case "renew":
            guard let p = subscriptions.isEmpty ? nil : random.pick(subscriptions) else { break }
            return .renew(purchase: p, short: random.chance(0.4))
        case "upgrade":
            guard let p = subscriptions.isEmpty ? nil : random.pick(subscriptions) else { break }
            return .upgrade(purchase: p, order: anyOrder())
        case "share":
            guard let p = anyPurchase() else { break }
            return .share(purchase: p, member: random.int(in: 0...(customers - 1)))
        case "refund":
            guard let p = anyPurchase() else { break }
            return .refund(purchase: p)
        case "reverse":
            guard let p = anyPurchase() else { break }
            return .reverse(purchase: p)
        case "deliver":
            return .deliver(random.weighted([(.inOrder, 5), (.reversed, 2), (.dropFirst, 2), (.duplicateFirst, 2)]))
        case "submit":
            guard let p = anyPurchase() else { break }
            let periods = world.purchases[p].periods.count
            let period = random.int(in: 0...(periods - 1))
            switch random.weighted([("signed", 45), ("receipt", 35), ("claim", 20)]) {
            case "signed": return .submit(user: user, evidence: .signed(purchase: p, period: period))
            case "receipt":
                // A receipt holds every period since the first, mostly: its holder has them all.
                let from = random.chance(0.6) ? 0 : random.int(in: 0...(periods - 1))
                return .submit(user: user, evidence: .receipt(purchase: p, from: from, through: random.int(in: from...(periods - 1)),
                                                              period: random.chance(0.85) ? period : periods))
            default: return .submit(user: user, evidence: .claim(purchase: p, period: period, trusted: random.chance(0.3)))
            }
        case "restore":
            guard let p = anyPurchase() else { break }
            return .restore(user: user, purchase: p)
        case "grant":
            return .supportGrant(user: user, product: random.pick(Product.allCases))
        case "revoke":
            guard let p = anyPurchase() else { break }
            return .supportRevoke(purchase: p)
        case "transfer":
            guard let p = anyPurchase() else { break }
            return .supportTransfer(purchase: p, to: user)
        default: break
        }
        // Nothing to act on yet: someone buys.
        return .buy(customer: 0, product: random.pick(Product.allCases), order: anyOrder(), short: random.chance(0.5))
    }
}

/// SplitMix64: small, fast and the same on every machine, so a seed replays its history.
public struct SplitMix64: Sendable {
    var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    public mutating func chance(_ p: Double) -> Bool { Double(next() % 1_000_000) / 1_000_000 < p }

    public mutating func pick<T>(_ items: [T]) -> T { items[int(in: 0...(items.count - 1))] }

    public mutating func weighted<T>(_ choices: [(T, Int)]) -> T {
        var roll = int(in: 0...(choices.map(\.1).reduce(0, +) - 1))
        for (choice, weight) in choices {
            if roll < weight { return choice }
            roll -= weight
        }
        return choices[choices.count - 1].0
    }
}
