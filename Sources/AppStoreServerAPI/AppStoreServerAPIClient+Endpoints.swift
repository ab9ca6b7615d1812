/// The endpoints, one method each, named as Apple names them.
extension AppStoreServerAPIClient {
    /// Get Transaction Info: one transaction by its id (or an original transaction id).
    public func getTransactionInfo(transactionId: String) async throws -> TransactionInfoResponse {
        try await perform(.getTransactionInfo, .get, path: "/inApps/v1/transactions/" + ServerAPIPath.segment(transactionId),
                          as: TransactionInfoResponse.self)
    }

    /// Get Transaction History (v2), one page. Pass the previous page's `revision` for the next;
    /// see `getFullTransactionHistory` for all pages.
    public func getTransactionHistory(transactionId: String, revision: String? = nil,
                                      request: TransactionHistoryRequest = .init()) async throws -> HistoryResponse {
        var query = revision.map { [("revision", $0)] } ?? []
        query += request.queryItems
        return try await perform(.getTransactionHistory, .get, path: "/inApps/v2/history/" + ServerAPIPath.segment(transactionId),
                                 query: query, as: HistoryResponse.self)
    }

    /// Get All Subscription Statuses, optionally only those with the given statuses (1–5).
    public func getAllSubscriptionStatuses(transactionId: String, status: [Int] = []) async throws -> StatusResponse {
        try await perform(.getAllSubscriptionStatuses, .get, path: "/inApps/v1/subscriptions/" + ServerAPIPath.segment(transactionId),
                          query: status.map { ("status", String($0)) }, as: StatusResponse.self)
    }

    /// Get Refund History (v2), one page; see `getFullRefundHistory` for all pages.
    public func getRefundHistory(transactionId: String, revision: String? = nil) async throws -> RefundHistoryResponse {
        try await perform(.getRefundHistory, .get, path: "/inApps/v2/refund/lookup/" + ServerAPIPath.segment(transactionId),
                          query: revision.map { [("revision", $0)] } ?? [], as: RefundHistoryResponse.self)
    }

    /// Get Notification History, one page; pass the previous page's `paginationToken` for the next.
    public func getNotificationHistory(_ request: NotificationHistoryRequest, paginationToken: String? = nil) async throws -> NotificationHistoryResponse {
        try await perform(.getNotificationHistory, .post, path: "/inApps/v1/notifications/history",
                          query: paginationToken.map { [("paginationToken", $0)] } ?? [],
                          body: ServerAPIJSON.encode(request), as: NotificationHistoryResponse.self)
    }

    /// Send Consumption Information (Apple's v2; v1 is deprecated) for a transaction Apple asked
    /// about (`CONSUMPTION_REQUEST`). Apple answers 202 with no body.
    public func sendConsumptionInformation(transactionId: String, _ request: ConsumptionRequest) async throws {
        _ = try await perform(.sendConsumptionInformation, .put,
                              path: "/inApps/v2/transactions/consumption/" + ServerAPIPath.segment(transactionId),
                              body: ServerAPIJSON.encode(request))
    }

    /// Request a Test Notification: Apple sends a `TEST` notification to the app's configured URL.
    public func requestTestNotification() async throws -> SendTestNotificationResponse {
        try await perform(.requestTestNotification, .post, path: "/inApps/v1/notifications/test", body: Array("{}".utf8),
                          as: SendTestNotificationResponse.self)
    }

    /// Get Test Notification Status: the `TEST` notification and Apple's attempts to deliver it.
    public func getTestNotificationStatus(testNotificationToken: String) async throws -> CheckTestNotificationResponse {
        try await perform(.getTestNotificationStatus, .get,
                          path: "/inApps/v1/notifications/test/" + ServerAPIPath.segment(testNotificationToken),
                          as: CheckTestNotificationResponse.self)
    }
}
