import Hummingbird

/// 405 with `Allow` for a known path asked with a method it does not serve (the router alone
/// would answer 404), and the route template a path matches, for metrics and the access log.
/// Kept beside the routes it mirrors: update both together.
enum MethodNotAllowed {
    /// Route templates as the router names them (`{…}` is one segment) and their methods.
    static let routes: [(template: String, method: String)] = [
        ("/v1/receipts", "POST"), ("/v1/receipts/{id}", "GET"), ("/v1/orders", "POST"),
        ("/v1/users/{user_id}/grants", "GET"), ("/v1/users/{user_id}/entitlements", "GET"),
        ("/v1/users/{user_id}/subscriptions", "GET"), ("/v1/transactions", "POST"), ("/v1/events", "GET"),
        ("/v1/apple/notifications", "POST"), ("/v1/users/{user_id}/consumption-consent", "PUT"), ("/v1/openapi.json", "GET"),
        ("/v1/users/{user_id}/history-syncs", "POST"), ("/v1/users/{user_id}/offer-signatures", "POST"),
        ("/v1/users/{user_id}/app-transactions", "GET"), ("/v1/users/{user_id}/app-transactions", "POST"),
    ]

    /// The label of a request that matched no route: one value whatever the path, so a scanner
    /// probing random paths cannot grow the metrics.
    static let unmatched = "unmatched"

    /// The methods `path` allows, or nil when no route has this path.
    static func allowed(path: String) -> String? {
        let methods = matching(path).map(\.method)
        return methods.isEmpty ? nil : (methods + (methods.contains("GET") ? ["HEAD"] : [])).joined(separator: ", ")
    }

    /// The template of the route `path` matches whatever the method (`/v1/receipts/{id}`), or
    /// `unmatched`.
    static func template(path: String) -> String {
        matching(path).first?.template ?? unmatched
    }

    private static func matching(_ path: String) -> [(template: String, method: String)] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        return routes.filter { route in
            let pattern = route.template.split(separator: "/", omittingEmptySubsequences: true)
            return pattern.count == segments.count && zip(pattern, segments).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
        }
    }
}
