import Foundation

/// A subscription claimed for a status check. `leaseUntil` (the `reconcile_at` the claim wrote)
/// fences the check's record: a claim taken over after it expired writes its own.
public struct ReconciliationLease: Sendable, Hashable {
    public var originalTransactionID: String
    public var environment: String
    public var leaseUntil: Date

    public init(originalTransactionID: String, environment: String, leaseUntil: Date) {
        self.originalTransactionID = originalTransactionID
        self.environment = environment
        self.leaseUntil = leaseUntil
    }
}
