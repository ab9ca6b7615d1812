import ReceiptQueue

extension FinishedAttempt {
    /// The lease's own transaction verified and handed to the ledger (product from the job, or
    /// "product"): how tests end a job `granted` — through a real grant, as workers do.
    public static func granting(_ lease: JobLease, environment: String = "Production") -> FinishedAttempt {
        FinishedAttempt(lease: lease, decision: .grant(GrantCandidate(
            transactionID: lease.transactionID, originalTransactionID: lease.transactionID, productID: lease.productID ?? "product",
            quantity: 1, purchaseDateMs: 1_700_000_000_000, environment: environment)))
    }

    /// The lease's attempt ended with `result`.
    public static func ending(_ lease: JobLease, _ result: AttemptResult, appleStatus: Int? = nil,
                              appleEnvironment: String? = nil) -> FinishedAttempt {
        FinishedAttempt(lease: lease, decision: .result(result), appleStatus: appleStatus, appleEnvironment: appleEnvironment)
    }
}
