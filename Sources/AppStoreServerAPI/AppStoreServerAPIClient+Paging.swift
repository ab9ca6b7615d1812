/// Helpers that follow Apple's paging to the end. Each page is one request (and one permit from
/// the gate). A page that claims more but repeats its token, or a history longer than `maxPages`,
/// ends the walk with `.unreadableResponse` rather than looping forever.
extension AppStoreServerAPIClient {
    /// Every page of a customer's transaction history, with the same filters on each page.
    /// - Parameter revision: start after this revision (the `revision` kept from a previous walk) to
    ///   fetch only what changed since. Default: from the beginning.
    public func getFullTransactionHistory(transactionId: String, request: TransactionHistoryRequest = .init(),
                                          startingAt revision: String? = nil, maxPages: Int = 1_000) async throws -> TransactionHistory {
        var history = TransactionHistory(signedTransactions: [], revision: revision, pages: 0)
        var next = revision
        while true {
            let page = try await getTransactionHistory(transactionId: transactionId, revision: next, request: request)
            history.pages += 1
            history.signedTransactions += page.signedTransactions ?? []
            history.revision = page.revision ?? history.revision
            history.environment = page.environment
            history.bundleId = page.bundleId
            history.appAppleId = page.appAppleId
            guard page.hasMore == true else { return history }
            next = try Self.nextToken(page.revision, previous: next, pages: history.pages, maxPages: maxPages)
        }
    }

    /// Every page of a customer's refund history.
    public func getFullRefundHistory(transactionId: String, maxPages: Int = 1_000) async throws -> [String] {
        var signed: [String] = []
        var next: String?
        var pages = 0
        while true {
            let page = try await getRefundHistory(transactionId: transactionId, revision: next)
            pages += 1
            signed += page.signedTransactions ?? []
            guard page.hasMore == true else { return signed }
            next = try Self.nextToken(page.revision, previous: next, pages: pages, maxPages: maxPages)
        }
    }

    /// Every page of the notification history matching `request`.
    public func getFullNotificationHistory(_ request: NotificationHistoryRequest, maxPages: Int = 1_000) async throws -> [NotificationHistoryItem] {
        var items: [NotificationHistoryItem] = []
        var next: String?
        var pages = 0
        while true {
            let page = try await getNotificationHistory(request, paginationToken: next)
            pages += 1
            items += page.notificationHistory ?? []
            guard page.hasMore == true else { return items }
            next = try Self.nextToken(page.paginationToken, previous: next, pages: pages, maxPages: maxPages)
        }
    }

    static func nextToken(_ token: String?, previous: String?, pages: Int, maxPages: Int) throws -> String {
        guard let token, !token.isEmpty, token != previous else {
            throw ServerAPIError(.unreadableResponse, httpStatus: 200, detail: "hasMore without a new page token")
        }
        guard pages < maxPages else {
            throw ServerAPIError(.unreadableResponse, httpStatus: 200, detail: "more than \(maxPages) pages")
        }
        return token
    }
}
