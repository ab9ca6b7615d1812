/// `receiptq.jobs` as a leased queue: the lease is `locked_by`/`locked_until` in `verifying`,
/// `attempts` is the fencing token, and the deadline counts from enqueue or the last re-drive.
extension JobLifecycle: QueueLifecycle {
    public static let table = QueueTable(
        name: "receiptq.jobs", key: ["id"], stateCheck: "jobs_state_check", leaseCheck: "jobs_lease_check",
        attempts: "attempts", budgetStart: "coalesce(redriven_at, created_at)")
}

extension JobState: QueueState {
    public static var leased: JobState? { .verifying }
}
