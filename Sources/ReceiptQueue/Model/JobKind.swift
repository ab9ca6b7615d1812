import Postgres

/// What a job verifies. Each kind is claimed separately (`ClaimBatch`), so a kind that waits for
/// Apple's rate budget never holds up one that does not.
public enum JobKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// A legacy app receipt: verifyReceipt, or the client's transaction id through the App Store
    /// Server API (the receipt is kept for audit).
    case receipt
    /// A StoreKit 2 `jwsRepresentation`, signed by Apple: verified locally, no call to Apple.
    case signedTransaction = "signed_transaction"
    /// An original-StoreKit app's transaction id: Get Transaction Info, under the rate budget.
    case transactionID = "transaction_id"
}

extension JobKind: PostgresDecodable {
    public init?(postgresText: String) { self.init(rawValue: postgresText) }
}
