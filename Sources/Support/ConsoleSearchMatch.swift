import Foundation

/// What a search term matched, said first on the search page: "Matched user id cust-1001",
/// "Matched transaction id …", "Matched original transaction id …", "Matched order id …",
/// "Matched job id …" (several when one term is several things), or "No match for …" — so an
/// operator knows whether the rows below are the customer they typed or a purchase that names it.
extension ConsolePages {
    static func matches(_ term: String, jobs: [[String: Any]], grants: [[String: Any]], orders: [[String: Any]]) -> [String] {
        func any(_ rows: [[String: Any]], _ key: String) -> Bool { rows.contains { H.text($0[key]) == term } }
        var found: [String] = []
        if any(jobs, "user_id") || any(grants, "user_id") || any(orders, "user_id") { found.append("user id") }
        if any(grants, "transaction_id") || any(jobs, "transaction_id") { found.append("transaction id") }
        if any(grants, "original_transaction_id") && !any(grants, "transaction_id") { found.append("original transaction id") }
        if any(orders, "order_id") || any(jobs, "order_id") { found.append("order id") }
        if any(jobs, "id") { found.append("job id") }
        return found
    }

    static func matched(_ term: String, jobs: [[String: Any]], grants: [[String: Any]], orders: [[String: Any]]) -> String {
        let found = matches(term, jobs: jobs, grants: grants, orders: orders)
        guard !found.isEmpty else {
            return "<p id=\"matched\" class=\"matched none\">No match for <strong>\(H.escape(term))</strong> as a user, transaction, "
                + "original transaction, order or job id in our records.</p>"
        }
        // The purchases the term names (as a transaction or an original transaction): their timelines.
        let purchases = Set(grants.filter { H.text($0["transaction_id"]) == term || H.text($0["original_transaction_id"]) == term }
            .map { H.text($0["original_transaction_id"]) }).sorted()
        let stories = purchases.compactMap { id in ConsoleLink.purchase.href(id).map { "<a href=\"\(H.escape($0))\">purchase \(H.escape(id))</a>" } }
        return "<p id=\"matched\" class=\"matched\">" + found.map { "Matched \($0) <strong>\(H.escape(term))</strong>" }.joined(separator: "; ")
            + "." + (stories.isEmpty ? "" : " Its story: " + stories.joined(separator: ", ") + ".") + "</p>"
    }
}
