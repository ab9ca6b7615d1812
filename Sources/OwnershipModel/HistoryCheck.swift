/// What the runner saw when it played a history against the real system.
public struct Observation: Sendable, Hashable, Codable {
    public struct Submission: Sendable, Hashable, Codable {
        public var step: Int
        /// The job the API answered with.
        public var job: Int64
        /// 202 (a new job) rather than 200 (the user's earlier one).
        public var created: Bool
        /// Once the job ended.
        public var verdict: String

        public init(step: Int, job: Int64, created: Bool, verdict: String) {
            self.step = step
            self.job = job
            self.created = created
            self.verdict = verdict
        }
    }

    public var submissions: [Submission] = []
    /// Restores, support actions and orders: accepted or refused, by step.
    public var answers: [Int: Bool] = [:]
    /// Every submitted job's verdict once the history ended.
    public var finalVerdicts: [Int64: String] = [:]
    /// Each user's entitlements once the history ended, by the model's user number.
    public var entitlements: [Int: Set<Product>] = [:]

    /// An event a backend received about one of the history's purchases.
    public struct Event: Sendable, Hashable, Codable {
        public var user: Int
        public var type: String
        public var purchase: Int

        public init(user: Int, type: String, purchase: Int) {
            self.user = user
            self.type = type
            self.purchase = purchase
        }
    }

    /// Every event about one of the history's purchases (grants, subscriptions, verdicts that
    /// name a purchase), by user.
    public var events: [Event] = []

    public init() {}
}

/// A history's expectations against what was observed: every difference, in words.
public enum HistoryCheck {
    public static func differences(_ history: History, _ reference: OwnershipReference, _ observed: Observation) -> [String] {
        var found: [String] = []
        let expected = reference.submissions
        if expected.map(\.step) != observed.submissions.map(\.step) {
            found.append("submissions made at steps \(expected.map(\.step)), the runner made \(observed.submissions.map(\.step))")
        }
        var realJob: [Int: Int64] = [:]
        for (e, o) in zip(expected, observed.submissions) {
            let step = "step \(e.step) \(describe(history.steps[e.step]))"
            if e.verdict != o.verdict { found.append("\(step): verdict \(o.verdict), the model says \(e.verdict)") }
            if e.created != o.created { found.append("\(step): \(o.created ? "a new job" : "an earlier job"), the model says \(e.created ? "a new job" : "the earlier one")") }
            if let known = realJob[e.job], known != o.job {
                found.append("\(step): job \(o.job), the model says the same job as \(known)")
            }
            realJob[e.job] = o.job
        }
        for e in expected {
            guard let job = realJob[e.job], let now = observed.finalVerdicts[job] else { continue }
            let owed = reference.ledger.verdict(e.job)
            if now != owed { found.append("at the end, step \(e.step)'s job \(job) reads \(now), the model says \(owed)") }
        }
        for (step, accepted) in reference.answers.sorted(by: { $0.key < $1.key }) where observed.answers[step] != accepted {
            let seen = observed.answers[step].map { $0 ? "accepted" : "refused" } ?? "not played"
            found.append("step \(step) \(describe(history.steps[step])): \(seen), the model says \(accepted ? "accepted" : "refused")")
        }
        // Nothing of a purchase reaches an account that never owned it: no grant, subscription or
        // verdict event naming it.
        for event in Set(observed.events) where !(reference.ledger.everOwned[event.purchase] ?? []).contains(event.user) {
            found.append("u\(event.user) received \(event.type) about purchase \(event.purchase), which it never owned")
        }
        for user in 0..<reference.users {
            let owed = reference.entitlements(of: user)
            let held = observed.entitlements[user] ?? []
            if owed != held {
                found.append("user \(user) is entitled to \(held.map(\.rawValue).sorted()), the model says \(owed.map(\.rawValue).sorted())")
            }
        }
        return found
    }

    /// One step in words: `u1 submits a receipt of purchase 0 (periods 0–2) naming period 1`.
    public static func describe(_ step: Step) -> String {
        switch step {
        case .order(let user, let product): "u\(user) orders \(product.rawValue)"
        case .buy(let customer, let product, let order, let short):
            "customer \(customer) buys \(product.rawValue)\(order.map { " with order \($0)'s token" } ?? "")\(product.isSubscription ? (short ? " (short first period)" : "") : "")"
        case .renew(let purchase, let short): "Apple renews purchase \(purchase)\(short ? " (short)" : "")"
        case .upgrade(let purchase, let order): "purchase \(purchase) is upgraded\(order.map { " with order \($0)'s token" } ?? "")"
        case .share(let purchase, let member): "purchase \(purchase) is family-shared with customer \(member)"
        case .refund(let purchase): "Apple refunds purchase \(purchase)'s latest period"
        case .reverse(let purchase): "Apple reverses purchase \(purchase)'s refund"
        case .deliver(let delivery): "notifications delivered \(delivery.rawValue)"
        case .submit(let user, let evidence):
            switch evidence {
            case .signed(let p, let k): "u\(user) submits the signed transaction of purchase \(p) period \(k)"
            case .receipt(let p, let from, let through, let k): "u\(user) submits a receipt of purchase \(p) (periods \(from)–\(through)) naming period \(k)"
            case .claim(let p, let k, let trusted): "u\(user) claims purchase \(p) period \(k) by id\(trusted ? " (trusted backend)" : "")"
            }
        case .restore(let user, let purchase): "u\(user) restores purchase \(purchase)"
        case .supportGrant(let user, let product): "support grants \(product.rawValue) to u\(user)"
        case .supportRevoke(let purchase): "support revokes purchase \(purchase)'s latest grant"
        case .supportTransfer(let purchase, let to): "support transfers purchase \(purchase) to u\(to)"
        }
    }

    /// A history as numbered lines, for a failure report.
    public static func describe(_ history: History) -> String {
        history.steps.enumerated().map { "  \($0.offset). \(describe($0.element))" }.joined(separator: "\n")
    }
}
