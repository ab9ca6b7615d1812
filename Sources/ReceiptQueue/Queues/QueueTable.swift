/// A leased queue's table: the columns every queue has under its own names. The schema is checked
/// against it (`QueueSchemaTests`): the state check names exactly the spec's states, and the lease
/// check ties the leased state to the lease columns.
public struct QueueTable: Sendable, Hashable {
    /// Schema-qualified, e.g. `receiptq.jobs`.
    public var name: String
    /// The primary key's columns.
    public var key: [String]
    /// The constraint that lists the states.
    public var stateCheck: String
    /// The constraint that says a row is leased exactly in the leased state; nil without leases.
    public var leaseCheck: String?
    /// Claims so far: the lease's fencing token with the key. nil without leases.
    public var attempts: String?
    /// The SQL expression the retry deadline counts from; nil when the queue has no deadline
    /// budget (or its deadline is a column of its own: `deadline`).
    public var budgetStart: String?

    public init(name: String, key: [String], stateCheck: String, leaseCheck: String? = nil, attempts: String? = nil,
                budgetStart: String? = nil) {
        self.name = name
        self.key = key
        self.stateCheck = stateCheck
        self.leaseCheck = leaseCheck
        self.attempts = attempts
        self.budgetStart = budgetStart
    }

    /// The unqualified table name.
    public var shortName: String { String(name.split(separator: ".").last ?? "") }
}
