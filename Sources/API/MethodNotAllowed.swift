import Hummingbird

/// 405 with `Allow` for a known path asked with a method it does not serve (the router alone
/// would answer 404). Kept beside the routes it mirrors: update both together.
enum MethodNotAllowed {
    /// Path patterns (`*` is one segment) and their methods.
    static let routes: [([Substring], String)] = [
        (["v1", "receipts"], "POST"), (["v1", "receipts", "*"], "GET"), (["v1", "orders"], "POST"),
        (["v1", "users", "*", "grants"], "GET"), (["v1", "users", "*", "entitlements"], "GET"),
        (["v1", "transactions"], "POST"), (["v1", "events"], "GET"), (["v1", "apple", "notifications"], "POST"),
        (["v1", "users", "*", "consumption-consent"], "PUT"),
    ]

    /// The methods `path` allows, or nil when no route has this path.
    static func allowed(path: String) -> String? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        let methods = routes.filter { pattern, _ in
            pattern.count == segments.count && zip(pattern, segments).allSatisfy { $0 == "*" || $0 == $1 }
        }.map(\.1)
        return methods.isEmpty ? nil : (methods + (methods.contains("GET") ? ["HEAD"] : [])).joined(separator: ", ")
    }
}
