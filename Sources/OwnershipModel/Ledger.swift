/// The server's side of a history as the reference model keeps it: orders, owners, the ledger,
/// jobs, what it knows of refunds and of each subscription. Written to be obviously right rather
/// than fast — a different implementation of DESIGN: Ownership and Verdicts than the product's
/// set-based SQL, so that the two agreeing means something.
public struct Ledger: Sendable, Hashable {
    public typealias Transaction = AppleWorld.Transaction

    public struct Order: Sendable, Hashable {
        public var user: Int
        public var product: Product
        public var pending = true
    }

    /// What makes a purchase one purchase (the product's `receiptq.purchase_key`).
    public enum Key: Sendable, Hashable, Comparable {
        /// A one-time purchase, by its original transaction.
        case whole(Int)
        /// A subscription period.
        case period(Int, Int)
        /// Support's manual grant.
        case manual(Int)
    }

    public struct Grant: Sendable, Hashable {
        public var user: Int
        /// The job that made it (nil: made by a job the history did not submit, or by hand).
        public var job: Int?
        public var product: Product
        public var revoked = false
        /// When the revocation Apple signed was signed; nil for none, or support's own.
        public var revocationSigned: Int?
        /// Support's manual grants: `manual` true.
        public var manual = false
    }

    public enum JobState: String, Sendable, Hashable {
        case granted, alreadyGranted, ownedElsewhere, rejected, resubmit, failed
    }

    public struct Job: Sendable, Hashable {
        public var user: Int
        public var state: JobState
        public var key: Key?
    }

    /// What the server knows of a subscription (`receiptq.subscriptions`' model).
    public struct Subscription: Sendable, Hashable {
        /// The current period, and when what is known of it was signed.
        public var current: Int
        public var signed: Int
        public var revoked: Bool
        public var short: Bool
        public var product: Product
    }

    public var orders: [Order] = []
    public var owners: [Int: Int] = [:]
    /// Every account that owned each original transaction at some moment.
    public var everOwned: [Int: Set<Int>] = [:]
    public var grants: [Key: Grant] = [:]
    /// A refund as the server recorded it: revoked or reinstated, and when Apple signed that.
    public struct Revocation: Sendable, Hashable {
        public var revoked: Bool
        public var signed: Int
    }

    public var revocations: [Transaction: Revocation] = [:]
    public var jobs: [Job] = []
    /// The submission keys of jobs (`receipt_submissions`, `transaction_submissions`): the same
    /// user's same submission is the same job.
    public var submitted: [String: Int] = [:]
    public var subscriptions: [Int: Subscription] = [:]
    /// Each original transaction's history sync: the revision it reached (absent: never synced).
    public var syncs: [Int: Int] = [:]
    public var manualGrants = 0

    public init() {}

    public static func key(_ t: Transaction, in world: AppleWorld) -> Key {
        world.period(t).product.isSubscription ? .period(t.purchase, t.period) : .whole(t.purchase)
    }

    /// The verdict a job reads now (`receiptq.verdict`).
    public func verdict(_ job: Int) -> String {
        let j = jobs[job]
        switch j.state {
        case .ownedElsewhere: return "owned_by_another_user"
        case .granted, .alreadyGranted:
            guard let key = j.key, let g = grants[key] else { return "pending" }
            if g.user != j.user { return "owned_by_another_user" }
            if g.revoked { return "revoked" }
            return g.job == job ? "delivered" : "already_delivered"
        case .rejected: return "not_paid"
        case .resubmit: return "resubmit"
        case .failed: return "pending"
        }
    }
}
