/// The reference model: a history's steps in, what every submitter is owed out — each
/// submission's verdict when it ends and again at the end, whether each restore and support
/// action is accepted, and every user's entitlements. Pure and deterministic: the same history
/// always owes the same. The runner plays the same history against the real API, workers, fake App
/// Store and database, and the two must agree.
///
/// The rules it holds, independently of the product's code (DESIGN: Ownership, Verdicts):
/// - One owner per original transaction, for its whole life: the user of the order an Apple-signed
///   appAccountToken names (while nobody owns it, or while that order is pending — a purchase or
///   upgrade made from that account moves it, with every grant); else the first submitter with
///   proof. Anyone else's submission of any of its periods is `owned_by_another_user`.
/// - One grant per purchase (a subscription: per period), written by its owner's first
///   submission; `delivered` to the job that wrote it, `already_delivered` to the owner's others.
/// - Apple's refunds, as the server learned them (notifications in signing order, history syncs),
///   revoke; reversals reinstate; a refunded transaction is never granted.
/// - Notifications, history syncs (a restore, and the first grant of a subscription) queue the
///   purchase for its owner; support grants, revokes and transfers by its rules.
/// - Entitlements: the owner's unrevoked one-time purchases, and each subscription's current period
///   while it lasts — from the owner's grants only.
public struct OwnershipReference: Sendable {
    public typealias Transaction = AppleWorld.Transaction

    public var world = AppleWorld()
    public var ledger = Ledger()
    /// Users and Apple customers a history may name.
    public let users: Int
    public let customers: Int

    /// One per `submit` step that named something that exists.
    public struct Submission: Sendable, Hashable {
        public var step: Int
        public var user: Int
        /// The model's job (`ledger.jobs`).
        public var job: Int
        /// A new job (202); false: the user's earlier job for the same submission (200).
        public var created: Bool
        /// The verdict once the job ended.
        public var verdict: String
    }

    public private(set) var submissions: [Submission] = []
    /// Each restore, support action and order step: accepted or refused.
    public private(set) var answers: [Int: Bool] = [:]

    /// Receipts minted so far, by what they hold: the same receipt is the same bytes.
    private var receipts: [String: Int] = [:]

    public init(users: Int = 4, customers: Int = 2) {
        self.users = users
        self.customers = customers
    }

    // MARK: - Steps

    public mutating func apply(_ step: Step, at index: Int) {
        switch step {
        case .order(let user, let product):
            ledger.orders.append(Ledger.Order(user: user, product: product))
            answers[index] = true
        case .buy(let customer, let product, let order, let short):
            let token = order.flatMap { ledger.orders.indices.contains($0) ? $0 : nil }
            _ = world.buy(customer: customer, product: product, token: token, short: short)
        case .renew(let purchase, let short):
            _ = world.renew(purchase, short: short)
        case .upgrade(let purchase, let order):
            _ = world.upgrade(purchase, token: order.flatMap { ledger.orders.indices.contains($0) ? $0 : nil })
        case .share(let purchase, let member):
            _ = world.share(purchase, member: member)
        case .refund(let purchase):
            _ = world.refund(purchase)
        case .reverse(let purchase):
            _ = world.reverse(purchase)
        case .deliver(let delivery):
            for notification in Self.order(world.undelivered, delivery) { receive(notification) }
            world.undelivered = []
        case .submit(let user, let evidence):
            submit(user, evidence, at: index)
        case .restore(let user, let purchase):
            guard world.purchase(purchase) != nil else { return }
            let owns = ledger.grants.contains { key, grant in Self.purchase(of: key) == purchase && grant.user == user }
            answers[index] = owns
            if owns { sync(purchase) }
        case .supportGrant(let user, let product):
            ledger.grants[.manual(ledger.manualGrants)] = Ledger.Grant(user: user, job: nil, product: product, manual: true)
            ledger.manualGrants += 1
            answers[index] = true
        case .supportRevoke(let purchase):
            guard let p = world.purchase(purchase) else { return }
            let key = Ledger.key(Transaction(purchase: purchase, period: p.latest), in: world)
            guard var grant = ledger.grants[key], !grant.revoked else { answers[index] = false; return }
            grant.revoked = true
            grant.revocationSigned = nil
            ledger.grants[key] = grant
            answers[index] = true
        case .supportTransfer(let purchase, let to):
            guard let p = world.purchase(purchase) else { return }
            guard let owner = ledger.owners[purchase], owner != to, !p.family,
                  !ledger.grants.contains(where: { Self.purchase(of: $0.key) == purchase && $0.value.revoked }) else {
                answers[index] = false
                return
            }
            move(purchase, to: to)
            answers[index] = true
        }
    }

    /// The order a delivery hands notifications to the API in.
    public static func order(_ notifications: [AppleWorld.Notification], _ delivery: Delivery) -> [AppleWorld.Notification] {
        switch delivery {
        case .inOrder: notifications
        case .reversed: notifications.reversed()
        case .dropFirst: Array(notifications.dropFirst())
        case .duplicateFirst: notifications + notifications.prefix(1)
        }
    }

    // MARK: - Submissions

    /// What the worker was handed for a job.
    enum Source {
        /// A signed transaction, as Apple signed it.
        case signed(AppleWorld.Signed)
        /// A receipt holding these periods (as minted), signed at `at`, naming `named`.
        case receipt([Transaction: AppleWorld.Period], at: Int, named: Transaction)
        /// A transaction id, looked up at Apple now.
        case claim(Transaction, trusted: Bool)
    }

    mutating func submit(_ user: Int, _ evidence: Evidence, at index: Int) {
        let dedupe: String
        let source: Source
        switch evidence {
        case .signed(let purchase, let period):
            guard let t = world.transaction(purchase, period) else { return }
            dedupe = "signed \(user) \(t.purchase)/\(t.period)"
            source = .signed(world.sign(t))
        case .receipt(let purchase, let from, let through, let period):
            guard let p = world.purchase(purchase), let named = world.transaction(purchase, period) else { return }
            let range = min(max(from, 0), p.latest)...min(max(through, from, 0), p.latest)
            var held: [Transaction: AppleWorld.Period] = [:]
            for k in range { held[Transaction(purchase: purchase, period: k)] = p.periods[k] }
            // The same periods in the same state are the same receipt, the same bytes.
            let identity = "\(purchase) \(range) " + range.map { p.periods[$0].revoked ? "r" : "-" }.joined()
            let at = receipts[identity] ?? world.signingMoment()
            receipts[identity] = at
            dedupe = "receipt \(user) \(identity) names \(named.period)"
            source = .receipt(held, at: at, named: named)
        case .claim(let purchase, let period, let trusted):
            guard let t = world.transaction(purchase, period) else { return }
            dedupe = "claim \(user) \(t.purchase)/\(t.period)"
            source = .claim(t, trusted: trusted)
        }
        if let job = ledger.submitted[dedupe] {
            submissions.append(Submission(step: index, user: user, job: job, created: false, verdict: ledger.verdict(job)))
            return
        }
        let job = newJob(user, dedupe)
        // The verdict as the job ends, before the history sync its grant sets off has run.
        let first = process(job, source)
        submissions.append(Submission(step: index, user: user, job: job, created: true, verdict: ledger.verdict(job)))
        if let first { sync(first) }
    }

    mutating func newJob(_ user: Int, _ dedupe: String) -> Int {
        ledger.jobs.append(Ledger.Job(user: user, state: .failed, key: nil))
        ledger.submitted[dedupe] = ledger.jobs.count - 1
        return ledger.jobs.count - 1
    }

    /// A job from start to end, then the history sync its grant set off, if it did.
    mutating func run(_ job: Int, _ source: Source) {
        if let first = process(job, source) { sync(first) }
    }

    /// A job: what Apple's answer says, what the server knows of refunds, the ledger, the
    /// subscription model. Returns the original transaction whose first grant it wrote, when a
    /// subscription's (its history sync follows: `grants_first_sighting`).
    mutating func process(_ job: Int, _ source: Source) -> Int? {
        let user = ledger.jobs[job].user
        let transaction: Transaction
        let proven: Bool, facts: [(Transaction, AppleWorld.Period, Int)]
        switch source {
        case .signed(let signed):
            guard !signed.period.revoked else { return end(job, .rejected) }
            transaction = signed.transaction
            proven = true
            facts = [(signed.transaction, signed.period, signed.at)]
        case .receipt(let held, let at, let named):
            guard let period = held[named] else { return end(job, .resubmit) }
            guard !period.revoked else { return end(job, .rejected) }
            transaction = named
            proven = true
            // A receipt says one thing per subscription: its latest period (receipts do not mark upgrades).
            let latest = held.keys.max()!
            facts = [(latest, AppleWorld.Period(product: held[latest]!.product, token: held[latest]!.token, short: held[latest]!.short,
                                               revoked: held[latest]!.revoked, upgraded: false, modified: 0), at)]
        case .claim(let t, let trusted):
            guard !world.period(t).revoked else { return end(job, .rejected) }
            transaction = t
            proven = trusted
            let signed = world.sign(t)
            facts = [(t, signed.period, signed.at)]
        }
        if ledger.revocations[transaction]?.revoked == true { return end(job, .rejected) }
        let (state, key) = decide(user: user, transaction: transaction, job: job, proven: proven)
        ledger.jobs[job].state = state
        ledger.jobs[job].key = key
        if [.granted, .alreadyGranted, .ownedElsewhere].contains(state) {
            for (t, period, at) in facts { fact(t, period, signed: at) }
        }
        if state == .granted, world.period(transaction).product.isSubscription, ledger.syncs[transaction.purchase] == nil {
            return transaction.purchase
        }
        return nil
    }

    mutating func end(_ job: Int, _ state: Ledger.JobState) -> Int? {
        ledger.jobs[job].state = state
        return nil
    }

    /// The ledger's decision for one purchase (DESIGN: Ownership).
    mutating func decide(user: Int, transaction t: Transaction, job: Int, proven: Bool) -> (Ledger.JobState, Ledger.Key?) {
        let p = world.purchase(t.purchase)!
        let period = world.period(t)
        let token = p.family ? nil : period.token
        let tokenOrder = token.map { ledger.orders[$0] }
        let current = ledger.owners[t.purchase]
        let due: Int? = if let tokenOrder, current == nil || tokenOrder.pending { tokenOrder.user } else { current }
        let key = Ledger.key(t, in: world)
        if let due, due != user { return (.ownedElsewhere, ledger.grants[key] == nil ? nil : key) }
        if due == nil && !proven { return (.resubmit, nil) }
        if let current, current != user { move(t.purchase, to: user) }
        if let grant = ledger.grants[key] { return (grant.user == user ? .alreadyGranted : .ownedElsewhere, key) }
        // The order it fulfils: the token's, if pending and for this product; else the user's oldest pending one.
        if !p.family {
            if let token, let order = tokenOrder, order.pending, order.product == period.product {
                ledger.orders[token].pending = false
            } else if let oldest = ledger.orders.indices.first(where: {
                ledger.orders[$0].user == user && ledger.orders[$0].product == period.product && ledger.orders[$0].pending
            }) {
                ledger.orders[oldest].pending = false
            }
        }
        if ledger.owners[t.purchase] == nil { setOwner(t.purchase, user) }
        ledger.grants[key] = Ledger.Grant(user: user, job: job, product: period.product)
        return (.granted, key)
    }

    mutating func setOwner(_ purchase: Int, _ user: Int) {
        ledger.owners[purchase] = user
        ledger.everOwned[purchase, default: []].insert(user)
    }

    /// The original transaction and every grant of it go to `user`.
    mutating func move(_ purchase: Int, to user: Int) {
        setOwner(purchase, user)
        for (key, _) in ledger.grants where Self.purchase(of: key) == purchase { ledger.grants[key]?.user = user }
    }

    static func purchase(of key: Ledger.Key) -> Int? {
        switch key {
        case .whole(let p), .period(let p, _): p
        case .manual: nil
        }
    }

    /// Whom a transaction Apple reports by itself is due to (`PurchaseOwner`).
    func owner(of t: Transaction) -> Int? {
        let p = world.purchase(t.purchase)!
        if !p.family, let token = world.period(t).token {
            if ledger.orders[token].pending { return ledger.orders[token].user }
            if let owner = ledger.owners[t.purchase] { return owner }
            return ledger.orders[token].user
        }
        return ledger.owners[t.purchase]
    }

    /// The owner's job for a transaction Apple reported (a notification's, a history page's):
    /// their submission of its signed transaction, if they made one; else a new job.
    mutating func queue(_ signed: AppleWorld.Signed) -> Int? {
        guard let user = owner(of: signed.transaction) else { return nil }
        let dedupe = "signed \(user) \(signed.transaction.purchase)/\(signed.transaction.period)"
        guard ledger.submitted[dedupe] == nil else { return nil }
        return newJob(user, dedupe)
    }

    // MARK: - What the server learns from Apple

    /// A notification, applied.
    mutating func receive(_ n: AppleWorld.Notification) {
        let t = n.signed.transaction
        switch n.kind {
        case .purchase:
            let job = queue(n.signed)
            fact(t, n.signed.period, signed: n.signed.at)
            if let job { run(job, .signed(n.signed)) }
        case .refund:
            if (ledger.revocations[t]?.signed ?? 0) < n.signed.at {
                ledger.revocations[t] = Ledger.Revocation(revoked: true, signed: n.signed.at)
                revokeGrants(t, signed: n.signed.at)
            }
            fact(t, n.signed.period, signed: n.signed.at)
        case .reversal:
            if (ledger.revocations[t]?.signed ?? 0) < n.signed.at {
                ledger.revocations[t] = Ledger.Revocation(revoked: false, signed: n.signed.at)
                reinstateGrants(t, signed: n.signed.at, manualToo: true)
            }
            fact(t, n.signed.period, signed: n.signed.at)
        }
    }

    mutating func revokeGrants(_ t: Transaction, signed: Int) {
        let key = Ledger.key(t, in: world)
        guard var grant = ledger.grants[key], (grant.revocationSigned ?? 0) < signed else { return }
        grant.revoked = true
        grant.revocationSigned = signed
        ledger.grants[key] = grant
    }

    /// A notified reversal reinstates support's own revocations too; a history page only Apple's.
    mutating func reinstateGrants(_ t: Transaction, signed: Int, manualToo: Bool) {
        let key = Ledger.key(t, in: world)
        guard var grant = ledger.grants[key], grant.revoked else { return }
        if let at = grant.revocationSigned { guard at < signed else { return } } else { guard manualToo else { return } }
        grant.revoked = false
        grant.revocationSigned = signed
        ledger.grants[key] = grant
    }

    /// What Apple signed about a subscription period moves its model (`SubscriptionModel`): the
    /// current period is the latest not upgraded away; the same period signed later updates it.
    mutating func fact(_ t: Transaction, _ period: AppleWorld.Period, signed: Int) {
        guard period.product.isSubscription, !period.upgraded else { return }
        let now = Ledger.Subscription(current: t.period, signed: signed, revoked: period.revoked, short: period.short, product: period.product)
        guard let s = ledger.subscriptions[t.purchase] else {
            ledger.subscriptions[t.purchase] = now
            return
        }
        if t.period > s.current || (t.period == s.current && signed >= s.signed) { ledger.subscriptions[t.purchase] = now }
    }

    /// A history sync of `purchase`'s original transaction: every transaction of its customer Apple
    /// changed since the sync's revision — queued for its owner, its refund or reversal recorded,
    /// its subscription fact applied — then the jobs it queued run.
    mutating func sync(_ purchase: Int) {
        var pending = [purchase]
        while let next = pending.first {
            pending.removeFirst()
            let customer = world.purchase(next)!.customer
            let (transactions, revision) = world.history(of: customer, after: ledger.syncs[next] ?? 0)
            ledger.syncs[next] = revision
            let signed = transactions.map { world.sign($0) }
            let jobs = signed.compactMap { s in queue(s).map { ($0, s) } }
            for s in signed {
                let t = s.transaction
                if s.period.revoked {
                    let recorded = ledger.revocations[t]
                    if recorded == nil || (recorded!.revoked == false && recorded!.signed < s.at) {
                        ledger.revocations[t] = Ledger.Revocation(revoked: true, signed: s.at)
                        revokeGrants(t, signed: s.at)
                    }
                } else if let recorded = ledger.revocations[t], recorded.revoked, recorded.signed < s.at {
                    ledger.revocations[t] = Ledger.Revocation(revoked: false, signed: s.at)
                    reinstateGrants(t, signed: s.at, manualToo: false)
                }
            }
            for s in signed { fact(s.transaction, s.period, signed: s.at) }
            for (job, s) in jobs {
                // A first grant of another subscription syncs that one too, after this page.
                if let first = process(job, .signed(s)), !pending.contains(first) { pending.append(first) }
            }
        }
    }

    // MARK: - What each user holds

    /// The products `user` is entitled to now (`ListEntitlements`), every short period ended.
    public func entitlements(of user: Int) -> Set<Product> {
        var products: Set<Product> = []
        for (key, grant) in ledger.grants where grant.user == user && !grant.revoked {
            switch grant.product.kind {
            case .consumable: continue
            case .nonConsumable: products.insert(grant.product)
            case .autoRenewable:
                switch key {
                case .manual: products.insert(grant.product)
                case .period(let p, let k):
                    if let s = ledger.subscriptions[p] {
                        if s.product == grant.product && !s.revoked && !s.short { products.insert(grant.product) }
                    } else if !world.purchases[p].periods[k].short {
                        products.insert(grant.product)
                    }
                case .whole: continue
                }
            }
        }
        return products
    }
}
