import ArgumentParser
import ReceiptQueue

/// `--max-attempts` and `--retry-deadline`: when a job is given up. Workers apply it when they
/// retry and the scheduler when it rescues an expired lease or a timed-out verification, so both
/// commands take this one group and read the same two variables (`RECEIPTQ_MAX_ATTEMPTS`,
/// `RECEIPTQ_RETRY_DEADLINE`): set once in the shared env file or ConfigMap, never repeated by
/// hand (a worker and a scheduler that disagree give jobs up at different points).
public struct RetryBudgetOptions: ParsableArguments, Sendable {
    private static let defaults = RetryBudget()

    @Option(help: "Give up on a job after this many attempts (worker and scheduler alike). Default: \(defaults.maxAttempts).")
    public var maxAttempts: Int?

    @Option(help: "Give up on a job this long after it was enqueued (worker and scheduler alike). Default: \(defaults.deadline.argumentText).")
    public var retryDeadline: Duration?

    public init() {}

    /// `base` with the options given applied (the configuration structs hold the defaults).
    public func budget(_ base: RetryBudget) -> RetryBudget {
        var budget = base
        budget.maxAttempts = maxAttempts ?? budget.maxAttempts
        budget.deadline = retryDeadline ?? budget.deadline
        return budget
    }
}
