import AppleSignedData

/// The endpoints customer support needs (`Support` target): Look Up Order ID, renewal-date
/// extensions (one subscriber, or every active subscriber of a product with status polling), Set
/// App Account Token, Get App Transaction Info and Finish Transaction. Named as Apple names them; bodies as Apple documents them.
extension AppStoreServerAPIClient {
    /// Look Up Order ID: the transactions of the order id on the customer's App Store receipt
    /// e-mail. Apple answers `status` 0 with signed transactions, or 1 when the order is not this
    /// app's (an answer, not an error).
    public func lookUpOrderId(_ orderId: String) async throws -> OrderLookupResponse {
        try await perform(.lookUpOrderId, .get, path: "/inApps/v1/lookup/" + ServerAPIPath.segment(orderId), as: OrderLookupResponse.self)
    }

    /// Extend a Subscription Renewal Date for one subscriber (1–90 days, reason 0–3).
    public func extendSubscriptionRenewalDate(originalTransactionId: String,
                                              _ request: ExtendRenewalDateRequest) async throws -> ExtendRenewalDateResponse {
        try await perform(.extendSubscriptionRenewalDate, .put,
                          path: "/inApps/v1/subscriptions/extend/" + ServerAPIPath.segment(originalTransactionId),
                          body: ServerAPIJSON.encode(request), as: ExtendRenewalDateResponse.self)
    }

    /// Extend Subscription Renewal Dates for All Active Subscribers of one product. Apple works
    /// on it in the background: poll `massExtensionStatus` with the request identifier.
    public func extendRenewalDateForAllActiveSubscribers(_ request: MassExtendRenewalDateRequest) async throws -> MassExtendRenewalDateResponse {
        try await perform(.massExtendRenewalDate, .post, path: "/inApps/v1/subscriptions/extend/mass",
                          body: ServerAPIJSON.encode(request), as: MassExtendRenewalDateResponse.self)
    }

    /// Get Status of Subscription Renewal Date Extensions (a mass extension's progress).
    public func massExtensionStatus(productId: String, requestIdentifier: String) async throws -> MassExtensionStatusResponse {
        try await perform(.massExtensionStatus, .get,
                          path: "/inApps/v1/subscriptions/extend/mass/" + ServerAPIPath.segment(productId) + "/"
                              + ServerAPIPath.segment(requestIdentifier),
                          as: MassExtensionStatusResponse.self)
    }

    /// Set App Account Token on an original transaction: later signed transactions carry it.
    /// Apple answers 200 with no body.
    public func setAppAccountToken(originalTransactionId: String, appAccountToken: String) async throws {
        _ = try await perform(.setAppAccountToken, .put,
                              path: "/inApps/v1/transactions/" + ServerAPIPath.segment(originalTransactionId) + "/appAccountToken",
                              body: ServerAPIJSON.encode(["appAccountToken": appAccountToken]))
    }

    /// Finish Transaction: tells the App Store this server finished processing the transaction
    /// (delivered what it bought). Apple answers 200 with no body.
    public func finishTransaction(transactionId: String) async throws {
        _ = try await perform(.finishTransaction, .post, path: "/inApps/v1/transactions/" + ServerAPIPath.segment(transactionId) + "/finish")
    }

    /// Get App Transaction Info: the customer's app transaction (their download of the app), found
    /// by any transaction id, original transaction id or app transaction id of theirs.
    public func getAppTransactionInfo(_ anyTransactionId: String) async throws -> AppTransactionInfoResponse {
        try await perform(.getAppTransactionInfo, .get, path: "/inApps/v1/transactions/appTransactions/" + ServerAPIPath.segment(anyTransactionId),
                          as: AppTransactionInfoResponse.self)
    }
}

extension AppStoreServerAPIClient {
    /// Get App Transaction Info, verified (chain, bundle id, environment, app Apple id).
    public func verifiedAppTransactionInfo(_ anyTransactionId: String, verifier: SignedDataVerifier) async throws -> AppTransactionPayload {
        let response = try await getAppTransactionInfo(anyTransactionId)
        guard let signed = response.signedAppTransactionInfo else {
            throw ServerAPIError(.unreadableResponse, httpStatus: 200, detail: "no signedAppTransactionInfo")
        }
        return try await verifier.verify(signed, as: AppTransactionPayload.self)
    }

    /// Look Up Order ID, each transaction verified; empty when Apple knows no such order.
    public func verifiedLookUpOrderId(_ orderId: String, verifier: SignedDataVerifier) async throws -> [TransactionPayload] {
        let response = try await lookUpOrderId(orderId)
        guard response.isValid else { return [] }
        var transactions: [TransactionPayload] = []
        for signed in response.signedTransactions ?? [] {
            transactions.append(try await verifier.verifyTransaction(signed))
        }
        return transactions
    }
}
