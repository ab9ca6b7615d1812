import Foundation

/// The endpoints, answered from `purchases` and `notifications` as Apple documents them: routing
/// and the transaction endpoints here; notifications in `+NotificationEndpoints`, consumption in
/// `+ConsumptionEndpoints`, orders, app transactions, app account tokens and Finish Transaction in
/// `+OrderEndpoints`,
/// renewal-date extensions in `+ExtensionEndpoints`. Get Transaction History v1 is answered as v2
/// (the fake does not track which consumables the app finished).
extension FakeServerAPI {
    static let pageSize = 20

    func endpoint(_ route: FakeServerAPIRoute, environment: FakeEnvironment, query: [(String, String)], body: [UInt8], now: Date) -> FakeServerAPIAnswer {
        switch route {
        case .transactionInfo(let id): transactionInfo(id, environment, now)
        case .history(let id), .historyV1(let id): history(id, environment, query, now)
        case .subscriptionStatuses(let id): subscriptionStatuses(id, environment, query, now)
        case .refundHistory(let id): refundHistory(id, environment, query, now)
        case .notificationHistory: notificationHistory(environment, query, body)
        case .consumptionV1(let id): consumptionV1(id, environment, body, now)
        case .consumption(let id): consumption(id, environment, body, now)
        case .requestTestNotification: requestTestNotification(environment)
        case .testNotificationStatus(let token): testNotificationStatus(token, environment)
        case .lookUpOrderId(let orderId): lookUpOrderId(orderId, environment, now)
        case .setAppAccountToken(let id): setAppAccountToken(id, environment, body)
        case .appTransactionInfo(let id): appTransactionInfo(id, environment, now)
        case .finishTransaction(let id): finishTransaction(id, environment)
        case .extendRenewalDate(let id): extendRenewalDate(id, environment, body)
        case .massExtendRenewalDate: massExtendRenewalDate(environment, body)
        case .massExtensionStatus(let productId, let requestIdentifier): massExtensionStatus(productId, requestIdentifier, environment)
        case .unknown: .text(404, "not found\n")
        }
    }

    static var transactionNotFound: FakeServerAPIAnswer { .appleError(404, 4_040_010, "Transaction id not found.") }

    private func transactionInfo(_ id: String, _ environment: FakeEnvironment, _ now: Date) -> FakeServerAPIAnswer {
        guard let purchase = purchases.transaction(id, in: environment) else { return Self.transactionNotFound }
        return .json(200, ["signedTransactionInfo": signer.signTransaction(purchase, signedAt: now)])
    }

    private struct HistoryBody: Encodable {
        var revision: String
        var hasMore: Bool
        var bundleId: String
        var appAppleId: Int64?
        var environment: String
        var signedTransactions: [String]
    }

    /// Get Transaction History v2 as Apple pages it: transactions in the order they were last
    /// modified (oldest first; `sort=DESCENDING` newest first), 20 a page, and a revision that names
    /// the last modification served. A walk resumed from the last page's revision receives what
    /// changed since — new periods and, again, old transactions refunded, reinstated, upgraded
    /// away or extended since — and an empty page (with the same revision) when nothing did.
    private func history(_ id: String, _ environment: FakeEnvironment, _ query: [(String, String)], _ now: Date) -> FakeServerAPIAnswer {
        guard var transactions = purchases.modifiedHistory(ofCustomerOwning: id, in: environment) else { return Self.transactionNotFound }
        let values = { (name: String) in query.filter { $0.0 == name }.map(\.1) }
        let productIds = values("productId"), productTypes = values("productType")
        if !productIds.isEmpty { transactions.removeAll { !productIds.contains($0.purchase.productId) } }
        if !productTypes.isEmpty {
            transactions.removeAll { entry in !productTypes.contains(FakeProductType(loosely: entry.purchase.type)?.historyFilterName ?? "") }
        }
        let groups = values("subscriptionGroupIdentifier")
        if !groups.isEmpty { transactions.removeAll { !groups.contains($0.purchase.subscriptionGroupIdentifier ?? "") } }
        // Apple's Python library sends `True`/`False`.
        if let revoked = values("revoked").first.flatMap({ Bool($0.lowercased()) }) { transactions.removeAll { $0.purchase.isRevoked != revoked } }
        if let ownership = values("inAppOwnershipType").first { transactions.removeAll { $0.purchase.inAppOwnershipType != ownership } }
        if let start = values("startDate").first.flatMap(Int64.init) { transactions.removeAll { $0.purchase.purchaseDate < start } }
        if let end = values("endDate").first.flatMap(Int64.init) { transactions.removeAll { $0.purchase.purchaseDate >= end } }
        let descending = values("sort").first == "DESCENDING"
        let prefix = descending ? "rev-d." : "rev."
        guard let mark = Self.offset(values("revision").first, prefix: prefix) else {
            return .appleError(400, 4_000_005, "Invalid request revision.")
        }
        if descending {
            transactions.reverse()
            if values("revision").first != nil { transactions.removeAll { $0.modified >= Int64(mark) } }
        } else {
            transactions.removeAll { $0.modified <= Int64(mark) }
        }
        let page = transactions.prefix(Self.pageSize)
        let next = page.last.map { String($0.modified) } ?? String(mark)
        return .json(200, HistoryBody(
            revision: prefix + next, hasMore: transactions.count > page.count, bundleId: configuration.bundleId,
            appAppleId: environment == .production ? configuration.appAppleId : nil, environment: environment.rawValue,
            signedTransactions: page.map { signer.signTransaction($0.purchase, signedAt: now) }))
    }

    private struct StatusBody: Encodable {
        struct Group: Encodable {
            var subscriptionGroupIdentifier: String
            var lastTransactions: [Item]
        }
        struct Item: Encodable {
            var status: Int
            var originalTransactionId: String
            var signedTransactionInfo: String
            var signedRenewalInfo: String
        }
        var environment: String
        var bundleId: String
        var appAppleId: Int64?
        var data: [Group]
    }

    private func subscriptionStatuses(_ id: String, _ environment: FakeEnvironment, _ query: [(String, String)], _ now: Date) -> FakeServerAPIAnswer {
        guard let transactions = purchases.history(ofCustomerOwning: id, in: environment) else { return Self.transactionNotFound }
        let wanted = Set(query.filter { $0.0 == "status" }.compactMap { Int($0.1) })
        let subscriptions = transactions.filter(\.isSubscription)
        var groups: [StatusBody.Group] = []
        for group in Set(subscriptions.compactMap(\.subscriptionGroupIdentifier)).sorted() {
            let inGroup = subscriptions.filter { $0.subscriptionGroupIdentifier == group }
            var items: [StatusBody.Item] = []
            for original in Set(inGroup.map(\.originalTransactionId)).sorted() {
                guard let latest = inGroup.filter({ $0.originalTransactionId == original }).max(by: { $0.purchaseDate < $1.purchaseDate })
                else { continue }
                let status = Self.subscriptionStatus(latest, now: now)
                guard wanted.isEmpty || wanted.contains(status) else { continue }
                items.append(StatusBody.Item(status: status, originalTransactionId: original,
                                             signedTransactionInfo: signer.signTransaction(latest, signedAt: now),
                                             signedRenewalInfo: signer.signRenewalInfo(latest, signedAt: now)))
            }
            if !items.isEmpty { groups.append(StatusBody.Group(subscriptionGroupIdentifier: group, lastTransactions: items)) }
        }
        return .json(200, StatusBody(environment: environment.rawValue, bundleId: configuration.bundleId,
                                     appAppleId: environment == .production ? configuration.appAppleId : nil, data: groups))
    }

    /// 1 active, 2 expired, 3 billing retry, 4 billing grace period, 5 revoked. What a lifecycle
    /// change said (`FakePurchases+Lifecycle`) comes before the dates: the fake's clock does not
    /// jump to a period's end, so a renewal asked for early starts in the future, and its billing
    /// failure or expiry is stated rather than dated.
    static func subscriptionStatus(_ latest: FakePurchase, now: Date) -> Int {
        if latest.isRevoked { return 5 }
        let now = FakePurchases.milliseconds(now)
        if latest.isInBillingRetryPeriod == true { return (latest.gracePeriodExpiresDate ?? 0) > now ? 4 : 3 }
        if latest.expirationIntent != nil { return 2 }
        return (latest.expiresDate ?? 0) > now ? 1 : 2
    }

    private struct RefundBody: Encodable {
        var signedTransactions: [String]
        var revision: String
        var hasMore: Bool
    }

    private func refundHistory(_ id: String, _ environment: FakeEnvironment, _ query: [(String, String)], _ now: Date) -> FakeServerAPIAnswer {
        guard let transactions = purchases.history(ofCustomerOwning: id, in: environment) else { return Self.transactionNotFound }
        let refunded = transactions.filter(\.isRevoked).sorted { ($0.revocationDate ?? 0, $0.transactionId) < ($1.revocationDate ?? 0, $1.transactionId) }
        guard let offset = Self.offset(query.first { $0.0 == "revision" }?.1, prefix: "ref.") else {
            return .appleError(400, 4_000_005, "Invalid request revision.")
        }
        let page = refunded.dropFirst(offset).prefix(Self.pageSize)
        let next = min(refunded.count, offset + page.count)
        return .json(200, RefundBody(signedTransactions: page.map { signer.signTransaction($0, signedAt: now) },
                                     revision: "ref.\(next)", hasMore: next < refunded.count))
    }

    /// The offset a page token names; `nil` token is the first page, a malformed one `nil`.
    static func offset(_ token: String?, prefix: String) -> Int? {
        guard let token else { return 0 }
        guard token.hasPrefix(prefix), let offset = Int(token.dropFirst(prefix.count)), offset >= 0 else { return nil }
        return offset
    }
}
