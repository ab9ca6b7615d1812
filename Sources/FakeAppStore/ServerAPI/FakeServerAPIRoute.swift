/// Which App Store Server API endpoint a request path names. Pure. The fake serves Apple's two
/// hosts on one port: `/production/inApps/…` and `/sandbox/inApps/…` (a bare `/inApps/…` is
/// production), so a client configured with base URL `http://127.0.0.1:PORT/production` sends
/// exactly Apple's paths.
enum FakeServerAPIRoute: Equatable, Sendable {
    case transactionInfo(String)
    case history(String)
    case subscriptionStatuses(String)
    case refundHistory(String)
    case notificationHistory
    case consumption(String)
    case requestTestNotification
    case testNotificationStatus(String)
    /// Under `/inApps/` but no endpoint the fake serves.
    case unknown

    /// The endpoint's name, as the client and the rate limits name it.
    var endpoint: String {
        switch self {
        case .transactionInfo: "get_transaction_info"
        case .history: "get_transaction_history"
        case .subscriptionStatuses: "get_all_subscription_statuses"
        case .refundHistory: "get_refund_history"
        case .notificationHistory: "get_notification_history"
        case .consumption: "send_consumption_information"
        case .requestTestNotification: "request_test_notification"
        case .testNotificationStatus: "get_test_notification_status"
        case .unknown: "unknown"
        }
    }

    var method: String {
        switch self {
        case .notificationHistory, .requestTestNotification: "POST"
        case .consumption: "PUT"
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
        let decoded = segments.map { FakeQuery.percentDecode($0) }
        let rest = Array(decoded.dropFirst())
        let route: FakeServerAPIRoute = switch rest.count {
        case 3 where rest[0] == "v1" && rest[1] == "transactions": .transactionInfo(rest[2])
        case 4 where rest[0] == "v1" && rest[1] == "transactions" && rest[2] == "consumption": .consumption(rest[3])
        case 3 where rest[0] == "v2" && rest[1] == "history": .history(rest[2])
        case 3 where rest[0] == "v1" && rest[1] == "subscriptions": .subscriptionStatuses(rest[2])
        case 4 where rest[0] == "v2" && rest[1] == "refund" && rest[2] == "lookup": .refundHistory(rest[3])
        case 3 where rest == ["v1", "notifications", "history"]: .notificationHistory
        case 3 where rest == ["v1", "notifications", "test"]: .requestTestNotification
        case 4 where rest[0] == "v1" && rest[1] == "notifications" && rest[2] == "test": .testNotificationStatus(rest[3])
        default: .unknown
        }
        if case .transactionInfo(let id) = route, id.isEmpty { return (environment, .unknown) }
        return (environment, route)
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
