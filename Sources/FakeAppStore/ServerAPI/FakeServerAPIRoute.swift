/// Which App Store Server API endpoint a request path names. Pure. The fake serves Apple's two
/// hosts on one port: `/production/inApps/…` and `/sandbox/inApps/…` (a bare `/inApps/…` is
/// production), so a client configured with base URL `http://127.0.0.1:PORT/production` sends
/// exactly Apple's paths.
enum FakeServerAPIRoute: Equatable, Sendable {
    case transactionInfo(String)
    /// Get Transaction History v2 (`/inApps/v2/history/…`).
    case history(String)
    /// Get Transaction History v1 (`/inApps/v1/history/…`), deprecated by Apple, still served.
    case historyV1(String)
    case subscriptionStatuses(String)
    case refundHistory(String)
    case notificationHistory
    /// Send Consumption Information v1 (`/inApps/v1/transactions/consumption/…`), deprecated by Apple.
    case consumptionV1(String)
    /// Send Consumption Information (v2, `/inApps/v2/transactions/consumption/…`).
    case consumption(String)
    case requestTestNotification
    case testNotificationStatus(String)
    case lookUpOrderId(String)
    case setAppAccountToken(String)
    case appTransactionInfo(String)
    /// Finish Transaction (`POST /inApps/v1/transactions/{transactionId}/finish`).
    case finishTransaction(String)
    case extendRenewalDate(String)
    case massExtendRenewalDate
    case massExtensionStatus(productId: String, requestIdentifier: String)
    /// Under `/inApps/` but no endpoint the fake serves.
    case unknown

    /// The endpoint's name, as Apple's Python library names the method that calls it (the fake's
    /// rate limits, faults and stats are keyed by it).
    var endpoint: String {
        switch self {
        case .transactionInfo: "get_transaction_info"
        case .history: "get_transaction_history"
        case .historyV1: "get_transaction_history_v1"
        case .subscriptionStatuses: "get_all_subscription_statuses"
        case .refundHistory: "get_refund_history"
        case .notificationHistory: "get_notification_history"
        case .consumptionV1: "send_consumption_data"
        case .consumption: "send_consumption_information"
        case .requestTestNotification: "request_test_notification"
        case .testNotificationStatus: "get_test_notification_status"
        case .lookUpOrderId: "look_up_order_id"
        case .setAppAccountToken: "set_app_account_token"
        case .appTransactionInfo: "get_app_transaction_info"
        case .finishTransaction: "finish_transaction"
        case .extendRenewalDate: "extend_subscription_renewal_date"
        case .massExtendRenewalDate: "extend_renewal_date_for_all_active_subscribers"
        case .massExtensionStatus: "get_status_of_subscription_renewal_date_extensions"
        case .unknown: "unknown"
        }
    }

    var method: String {
        switch self {
        case .notificationHistory, .requestTestNotification, .massExtendRenewalDate, .finishTransaction: "POST"
        case .consumption, .consumptionV1, .setAppAccountToken, .extendRenewalDate: "PUT"
        default: "GET"
        }
    }

    /// The environment and route of `path` (no query), or `nil` when it is not a Server API path.
    static func parse(_ path: String) -> (FakeEnvironment, FakeServerAPIRoute)? {
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        var environment = FakeEnvironment.production
        if let first = segments.first, let named = FakeEnvironment(loosely: first), first == first.lowercased() {
            environment = named
            segments.removeFirst()
        }
        guard segments.first == "inApps" else { return nil }
        let rest = Array(segments.dropFirst().map { FakeQuery.percentDecode($0) })
        let route = route(rest)
        // An empty identifier names no resource, as at Apple.
        let identifiers: [String] = switch route {
        case .transactionInfo(let id), .history(let id), .historyV1(let id), .subscriptionStatuses(let id), .refundHistory(let id),
             .consumptionV1(let id), .consumption(let id), .testNotificationStatus(let id), .lookUpOrderId(let id),
             .setAppAccountToken(let id), .appTransactionInfo(let id), .finishTransaction(let id), .extendRenewalDate(let id): [id]
        case .massExtensionStatus(let product, let request): [product, request]
        default: []
        }
        return (environment, identifiers.contains("") ? .unknown : route)
    }

    /// `rest`: the decoded segments after `/inApps`.
    private static func route(_ rest: [String]) -> FakeServerAPIRoute {
        switch (rest.first, rest.count) {
        case ("v1", 3):
            switch rest[1] {
            case "transactions": return .transactionInfo(rest[2])
            case "history": return .historyV1(rest[2])
            case "subscriptions": return .subscriptionStatuses(rest[2])
            case "lookup": return .lookUpOrderId(rest[2])
            case "notifications" where rest[2] == "history": return .notificationHistory
            case "notifications" where rest[2] == "test": return .requestTestNotification
            default: return .unknown
            }
        case ("v1", 4):
            switch (rest[1], rest[2], rest[3]) {
            case ("transactions", "consumption", let id): return .consumptionV1(id)
            case ("transactions", "appTransactions", let id): return .appTransactionInfo(id)
            case ("transactions", let id, "appAccountToken"): return .setAppAccountToken(id)
            case ("transactions", let id, "finish"): return .finishTransaction(id)
            case ("notifications", "test", let token): return .testNotificationStatus(token)
            case ("subscriptions", "extend", "mass"): return .massExtendRenewalDate
            case ("subscriptions", "extend", let id): return .extendRenewalDate(id)
            default: return .unknown
            }
        case ("v1", 6) where rest[1] == "subscriptions" && rest[2] == "extend" && rest[3] == "mass":
            return .massExtensionStatus(productId: rest[4], requestIdentifier: rest[5])
        case ("v2", 3) where rest[1] == "history": return .history(rest[2])
        case ("v2", 4) where rest[1] == "refund" && rest[2] == "lookup": return .refundHistory(rest[3])
        case ("v2", 4) where rest[1] == "transactions" && rest[2] == "consumption": return .consumption(rest[3])
        default: return .unknown
        }
    }
}

/// Query strings and percent-encoding, read the way a web server reads them.
enum FakeQuery {
    /// `path` and its query items (names may repeat), percent-decoded.
    static func split(_ uri: String) -> (path: String, items: [(String, String)]) {
        let parts = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts.first ?? "")
        guard parts.count == 2 else { return (path, []) }
        let items = parts[1].split(separator: "&").map { pair -> (String, String) in
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (percentDecode(String(kv[0])), kv.count == 2 ? percentDecode(String(kv[1])) : "")
        }
        return (path, items)
    }

    static func percentDecode(_ text: String) -> String {
        text.removingPercentEncoding ?? text
    }
}
