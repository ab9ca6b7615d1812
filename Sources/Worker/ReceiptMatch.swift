import AppStore
import ReceiptQueue

/// What a genuine receipt (Apple status 0 or 21006) means for one job: grant the job's
/// transaction, or reject it with a reason. Pure; the ledger later decides between granted and
/// already granted.
public enum ReceiptMatch {
    public struct Rules: Sendable {
        /// Bundle ids of our apps; a receipt of any other app is rejected. Never empty.
        public var bundleIDs: Set<String>
        /// Accept receipts Apple verified in the sandbox (App Review and TestFlight buy there with
        /// production builds). Default true; the grant is marked environment=Sandbox.
        public var acceptSandbox: Bool

        public init(bundleIDs: Set<String>, acceptSandbox: Bool = true) {
            self.bundleIDs = bundleIDs
            self.acceptSandbox = acceptSandbox
        }
    }

    public enum Result: Sendable, Equatable {
        case grant(GrantCandidate)
        case reject(reason: String)
    }

    public static func decide(_ response: VerifyReceiptResponse, answeredBy environment: VerifyReceiptEnvironment,
                              lease: JobLease, rules: Rules) -> Result {
        guard let receipt = response.receipt else {
            return .reject(reason: "Apple returned no receipt")
        }
        guard rules.bundleIDs.contains(receipt.bundleID) else {
            return .reject(reason: "receipt belongs to another app (bundle id \(receipt.bundleID.prefix(100)))")
        }
        if environment == .sandbox && !rules.acceptSandbox {
            return .reject(reason: "sandbox receipts are not accepted")
        }
        // A genuine receipt with no purchases in it is how replayed "empty" receipts look.
        guard !receipt.inApp.isEmpty else {
            return .reject(reason: "receipt contains no in-app purchases")
        }
        guard let transaction = receipt.inApp.first(where: { $0.transactionID == lease.transactionID })
                ?? response.latestReceiptInfo.first(where: { $0.transactionID == lease.transactionID }) else {
            return .reject(reason: "transaction not found in receipt")
        }
        if let product = lease.productID, product != transaction.productID {
            return .reject(reason: "product does not match the receipt (receipt has \(transaction.productID.prefix(100)))")
        }
        if transaction.cancellationDateMs != nil {
            return .reject(reason: "purchase was refunded or revoked by Apple")
        }
        return .grant(GrantCandidate(
            transactionID: transaction.transactionID, originalTransactionID: transaction.originalTransactionID,
            productID: transaction.productID, quantity: max(transaction.quantity, 1),
            purchaseDateMs: transaction.purchaseDateMs, environment: environment.rawValue))
    }
}
