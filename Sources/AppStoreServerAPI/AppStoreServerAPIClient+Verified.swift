import AppleSignedData

/// Calls that verify what Apple signed before returning it: the verifier checks each JWS against
/// the roots it trusts (never one sent in the message), then bundle id and environment. Configure
/// the verifier for this client's environment (`ServerAPIEnvironment.signedDataEnvironment`).
extension AppStoreServerAPIClient {
    /// Get Transaction Info, verified.
    public func verifiedTransactionInfo(transactionId: String, verifier: SignedDataVerifier) async throws -> TransactionPayload {
        let response = try await getTransactionInfo(transactionId: transactionId)
        guard let signed = response.signedTransactionInfo else {
            throw ServerAPIError(.unreadableResponse, httpStatus: 200, detail: "no signedTransactionInfo")
        }
        return try await verifier.verifyTransaction(signed)
    }

    /// Every page of the transaction history, each transaction verified (all or nothing).
    public func verifiedTransactionHistory(transactionId: String, request: TransactionHistoryRequest = .init(),
                                           verifier: SignedDataVerifier) async throws -> [TransactionPayload] {
        let history = try await getFullTransactionHistory(transactionId: transactionId, request: request)
        var transactions: [TransactionPayload] = []
        transactions.reserveCapacity(history.signedTransactions.count)
        for signed in history.signedTransactions {
            transactions.append(try await verifier.verifyTransaction(signed))
        }
        return transactions
    }

    /// Every refunded transaction, verified.
    public func verifiedRefundHistory(transactionId: String, verifier: SignedDataVerifier) async throws -> [TransactionPayload] {
        var transactions: [TransactionPayload] = []
        for signed in try await getFullRefundHistory(transactionId: transactionId) {
            transactions.append(try await verifier.verifyTransaction(signed))
        }
        return transactions
    }

    /// All subscription statuses, with each transaction and renewal info verified.
    public func verifiedSubscriptionStatuses(transactionId: String, verifier: SignedDataVerifier) async throws -> [VerifiedSubscriptionStatus] {
        let response = try await getAllSubscriptionStatuses(transactionId: transactionId)
        var statuses: [VerifiedSubscriptionStatus] = []
        for group in response.data ?? [] {
            for item in group.lastTransactions ?? [] {
                statuses.append(VerifiedSubscriptionStatus(
                    subscriptionGroupIdentifier: group.subscriptionGroupIdentifier,
                    status: item.status,
                    originalTransactionId: item.originalTransactionId,
                    transaction: try await item.signedTransactionInfo.asyncMap { try await verifier.verifyTransaction($0) },
                    renewalInfo: try await item.signedRenewalInfo.asyncMap { try await verifier.verifyRenewalInfo($0) }))
            }
        }
        return statuses
    }
}

/// One subscription's status with its signed parts verified.
public struct VerifiedSubscriptionStatus: Sendable, Hashable {
    public var subscriptionGroupIdentifier: String?
    /// 1 active, 2 expired, 3 billing retry, 4 billing grace period, 5 revoked.
    public var status: Int?
    public var originalTransactionId: String?
    public var transaction: TransactionPayload?
    public var renewalInfo: RenewalInfoPayload?
}

extension Optional {
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async throws -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
