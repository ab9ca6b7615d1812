/// The database group roles of migration 0011, one per process: each holds exactly the
/// privileges its process needs, and each process logs in with a login that is a member of its
/// group, so PostgreSQL itself refuses what a process was never meant to do.
public enum ProcessRole: String, Sendable, CaseIterable {
    /// `receiptq api` (and `receiptq enqueue`): inserts receipts and orders, reads results.
    case api
    /// `receiptq worker`: claims and ends jobs, writes the ledger, events, deliveries.
    case worker
    /// `receiptq scheduler`: rescues, requeues, gives up and prunes.
    case scheduler
    /// Ops views, dashboards, autoscalers: reads everything but receipts and webhook secrets.
    case readonly
    /// The support listener's admin login and `receiptq support …` (migration 0024): reads what
    /// `readonly` reads (a member of it); writes the audit log, the fleet's pause switch, re-drives
    /// and discards, and the ledger only through the audited support functions.
    case support

    /// The group role's name in PostgreSQL, e.g. `receiptq_worker`.
    public var groupName: String { "receiptq_\(rawValue)" }
}
