import Foundation
import Hummingbird
import Postgres
import ReceiptQueue

/// The console's pages, one method each. Reads go through the read-only login whoever is logged
/// in; forms are rendered for admins only (`form`), each posting to `ConsoleRoutes`' actions.
struct ConsolePages: Sendable {
    let operations: SupportOperations
    let auth: ConsoleAuth
    typealias H = ConsoleHTML

    /// The order a section's columns read in (the story first, the bookkeeping after).
    static let columns: [String: [String]] = [
        "jobs": ["id", "kind", "state", "transaction_id", "product_id", "order_id", "attempts", "apple_status", "apple_environment",
                 "last_error", "outcome_reason", "created_at", "finished_at", "run_at", "locked_by", "user_id"],
        "grants": ["purchase_key", "user_id", "product_id", "product_type", "transaction_id", "original_transaction_id", "environment",
                   "ownership_type", "granted_at", "revoked_at", "revocation_reason", "manual_by", "job_id"],
        "notifications": ["notification_uuid", "notification_type", "subtype", "state", "environment", "original_transaction_id",
                          "transaction_id", "attempts", "last_error", "outcome", "received_at", "applied_at"],
        "audit": ["id", "at", "actor", "action", "subject", "why"],
    ]

    /// The form when `who` may act, else nothing.
    func form(_ who: SupportCredentials.Operator, _ action: String, back: String, label: String, fields: String = "") -> String {
        who.role == .admin ? H.action(action, csrf: auth.csrfToken(for: who), back: back, label: label, fields: fields) : ""
    }

    func rows(_ sql: String, _ parameters: [(any PostgresEncodable)?] = []) async throws -> [[String: Any]] {
        try await ConsoleQueries.run(sql, parameters, on: operations.readonly)
    }

    func overview(_ who: SupportCredentials.Operator, flash: String?) async throws -> String {
        let fleet = try await operations.fleet()
        var body = "<p>Fleet: " + (fleet.paused ? "<span class=\"paused\">paused</span> by \(H.escape(fleet.changedBy ?? "")) — \(H.escape(fleet.reason ?? ""))"
                                                : "<span class=\"live\">running</span>") + "</p>"
        body += form(who, fleet.paused ? "resume" : "pause", back: "/console", label: fleet.paused ? "Resume the fleet" : "Pause the fleet")
        body += "<h2>Jobs: depth</h2>" + H.table(try await rows(ConsoleQueries.queueDepth), id: "queue-depth")
        body += "<h2>Jobs: health and throughput</h2>" + H.table(try await rows(ConsoleQueries.queueHealth), id: "queue-health")
        body += "<h2>Failures (24 h)</h2>" + H.table(try await rows(ConsoleQueries.failureSummary))
        body += "<h2>Notifications</h2>" + H.table(try await rows(ConsoleQueries.notificationHealth))
        body += "<h2>Webhooks</h2>" + H.table(try await rows(ConsoleQueries.webhookHealth))
        body += "<h2>Consumption requests</h2>" + H.table(try await rows(ConsoleQueries.consumption))
        body += "<h2>Live workers</h2>" + H.table(try await rows(ConsoleQueries.workers), columns: ["worker", "host", "live", "beat_at", "leased_jobs"])
        return H.page("Overview", who: who, flash: flash, refresh: flash == nil, body)
    }

    func failures(_ who: SupportCredentials.Operator, request: Request) async throws -> String {
        let query = request.uri.queryParameters
        let state = query.get("state").map { String($0) }.flatMap { ["failed", "rejected", "queued", "timed_out"].contains($0) ? $0 : nil } ?? "failed"
        let status = query.get("apple_status").flatMap { Int($0) }
        let reason = query.get("reason").map { String($0) }.flatMap { $0.isEmpty ? nil : $0 }
        let found = try await rows(ConsoleQueries.failures, [state, status, reason])
        let back = "/console/failures?state=\(H.url(state))" + (status.map { "&apple_status=\($0)" } ?? "") + (reason.map { "&reason=" + H.url($0) } ?? "")
        var body = """
            <form method="get" action="/console/failures">
            <select name="state" aria-label="state">\(["failed", "rejected", "queued", "timed_out"].map { "<option\($0 == state ? " selected" : "")>\($0)</option>" }.joined())</select>
            <input name="apple_status" placeholder="Apple status" value="\(status.map { String($0) } ?? "")" aria-label="Apple status">
            <input name="reason" placeholder="reason contains" value="\(H.escape(reason ?? ""))" aria-label="reason"><button>Filter</button></form>
            """
        let table = H.table(found, id: "failures", columns: ["id", "kind", "state", "user_id", "transaction_id", "product_id", "attempts", "apple_status", "reason", "at"],
                            extra: who.role == .admin ? { row in "<input type=\"checkbox\" name=\"job\" form=\"bulk\" value=\"\(H.escape(H.text(row["id"])))\" aria-label=\"select\">" } : nil)
        body += "<p>\(found.count) job(s) shown (at most 200).</p>" + table
        if who.role == .admin && !found.isEmpty {
            body += "<p><label><input type=\"checkbox\" data-select-all=\"job\"> select all</label></p>"
            let csrf = auth.csrfToken(for: who)
            body += """
                <form id="bulk" class="action" method="post" action="/console/actions/\(state == "failed" ? "redrive-jobs" : "discard-jobs")">\
                \(H.hidden("csrf", csrf))\(H.hidden("back", back))<input name="why" required placeholder="why (audited)" aria-label="why">\
                <button>\(state == "failed" ? "Re-drive selected" : "Discard selected")</button></form>
                """
        }
        return H.page("Failures", who: who, flash: query.get("done").map { String($0) }, body)
    }

    func search(_ who: SupportCredentials.Operator, query: String) async throws -> String {
        let term = query.trimmingCharacters(in: .whitespaces)
        guard (1...256).contains(term.count) else { return H.page("Search", who: who, flash: nil, "<p>Type a user, transaction, order or job id.</p>") }
        let jobs = try await rows(ConsoleQueries.searchJobs, [term, Int64(term)])
        let grants = try await rows(ConsoleQueries.searchGrants, [term])
        let orders = try await rows(ConsoleQueries.searchOrders, [term])
        let users = Set(grants.map { H.text($0["user_id"]) } + jobs.map { H.text($0["user_id"]) } + orders.map { H.text($0["user_id"]) }).sorted()
        var body = "<h2>Customers</h2>" + (users.isEmpty ? "<p class=\"empty\">none</p>"
            : "<ul id=\"customers\">" + users.map { "<li><a href=\"/console/customers/\(H.url($0))\">\(H.escape($0))</a></li>" }.joined() + "</ul>")
        body += "<h2>Purchases</h2>" + H.table(grants, id: "grants")
        body += "<h2>Jobs</h2>" + H.table(jobs, id: "jobs", columns: ["id", "kind", "state", "user_id", "transaction_id", "order_id", "created_at"])
        body += "<h2>Orders</h2>" + H.table(orders)
        body += "<p><a href=\"/console/orders/\(H.url(term))\">Look up \(H.escape(term)) as an App Store order id at Apple</a></p>"
        return H.page("Search: \(term)", who: who, flash: nil, body)
    }

    func customer(_ who: SupportCredentials.Operator, userID: String, flash: String?) async throws -> String {
        let view = H.object(try await operations.customer(userID: userID))
        let back = "/console/customers/" + H.url(userID)
        var body = ""
        body += "<h2>Entitlements</h2>" + H.table(view["entitlements"] as? [[String: Any]] ?? [])
        body += "<h2>Grants</h2>" + H.table(view["grants"] as? [[String: Any]] ?? [], id: "grants",
                                             columns: ["purchase_key", "product_id", "product_type", "original_transaction_id", "environment", "granted_at",
                                                       "revoked_at", "revocation_reason", "manual_by", "job_id"],
                                             extra: who.role == .admin ? { row in
                                                 row["revoked_at"] is NSNull || row["revoked_at"] == nil
                                                     ? form(who, "revoke", back: back, label: "Revoke", fields: H.hidden("purchase_key", H.text(row["purchase_key"]))) : ""
                                             } : nil)
        body += form(who, "grant", back: back, label: "Grant by hand", fields: H.hidden("user_id", userID)
            + "<input name=\"product_id\" required placeholder=\"product id\" aria-label=\"product id\">"
            + "<input name=\"reference\" required placeholder=\"reference (ticket)\" aria-label=\"reference\">"
            + "<select name=\"product_type\" required aria-label=\"product type\"><option value=\"\">type?</option>"
            + SupportLedger.productTypes.sorted().map { "<option>\($0)</option>" }.joined() + "</select>"
            + "<input name=\"duration_days\" type=\"number\" min=\"1\" max=\"3650\" placeholder=\"days (subscriptions)\" aria-label=\"days of access (subscriptions)\">")
        for section in ["subscriptions", "orders", "jobs", "notifications", "deliveries", "audit"] {
            body += "<h2>\(section.capitalized)</h2>" + H.table(view[section] as? [[String: Any]] ?? [], id: section, columns: Self.columns[section])
        }
        return H.page("Customer \(userID)", who: who, flash: flash, body)
    }

    func purchase(_ who: SupportCredentials.Operator, originalTransactionID: String, flash: String?) async throws -> String {
        let view = H.object(try await operations.purchase(originalTransactionID: originalTransactionID))
        let back = "/console/purchases/" + H.url(originalTransactionID)
        var body = form(who, "transfer", back: back, label: "Transfer to account",
                        fields: H.hidden("original_transaction_id", originalTransactionID)
                            + "<input name=\"to_user_id\" required placeholder=\"new owner's user id\" aria-label=\"to user\">")
        body += form(who, "extend", back: back, label: "Extend renewal (days)",
                     fields: H.hidden("original_transaction_id", originalTransactionID)
                        + "<input name=\"days\" type=\"number\" min=\"1\" max=\"90\" required aria-label=\"days\">")
        for section in ["grants", "subscriptions", "jobs", "notifications", "deliveries", "audit"] {
            body += "<h2>\(section.capitalized)</h2>" + H.table(view[section] as? [[String: Any]] ?? [], id: section, columns: Self.columns[section])
        }
        return H.page("Purchase \(originalTransactionID)", who: who, flash: flash, body)
    }

    func order(_ who: SupportCredentials.Operator, orderID: String) async throws -> String {
        let view = H.object(try await operations.lookUpOrder(orderID))
        let body = "<p>Apple's environment: \(H.escape(H.text(view["environment"])))</p>"
            + "<h2>Apple's transactions</h2>" + H.table(view["transactions"] as? [[String: Any]] ?? [],
                                                        columns: ["transactionId", "originalTransactionId", "productId", "purchaseDate", "revocationDate"])
            + "<h2>Our grants</h2>" + H.table(view["grants"] as? [[String: Any]] ?? [])
        return H.page("Order \(orderID)", who: who, flash: nil, body)
    }

    func job(_ who: SupportCredentials.Operator, id: String, flash: String?) async throws -> String {
        guard let number = Int64(id) else { throw SupportError(.invalid, "a job id is a number") }
        let job = try await rows(ConsoleQueries.job, [number])
        guard let row = job.first else { throw SupportError(.notFound, "no job \(number) (it may have been pruned)") }
        let back = "/console/jobs/\(number)"
        var body = H.table(row.keys.sorted().map { ["field": $0, "value": row[$0] ?? NSNull()] }, id: "job", columns: ["field", "value"],
                           link: { column, line in column == "value" && H.text(line["field"]) == "user_id" ? "/console/customers/" + H.url(H.text(line["value"])) : nil })
        let state = H.text(row["state"])
        if state == "failed" {
            body += form(who, "redrive-jobs", back: back, label: "Re-drive", fields: H.hidden("job", String(number)))
        } else if state == "queued" || state == "timed_out" {
            body += form(who, "discard-jobs", back: back, label: "Discard", fields: H.hidden("job", String(number)))
        }
        body += "<h2>Grant</h2>" + H.table(try await rows(ConsoleQueries.jobGrant, [number]))
        body += "<h2>Events</h2>" + H.table(try await rows(ConsoleQueries.jobEvents, [number]))
        body += "<h2>Webhook deliveries</h2>" + H.table(try await rows(ConsoleQueries.jobDeliveries, [number]))
        body += "<h2>Audit</h2>" + H.table(try await rows(ConsoleQueries.audit, ["job:\(number)"]))
        return H.page("Job \(number)", who: who, flash: flash, body)
    }

    func workers(_ who: SupportCredentials.Operator, flash: String?) async throws -> String {
        let fleet = try await operations.fleet()
        var body = "<p>Fleet: \(fleet.paused ? "<span class=\"paused\">paused</span>" : "<span class=\"live\">running</span>")</p>"
        body += form(who, fleet.paused ? "resume" : "pause", back: "/console/workers", label: fleet.paused ? "Resume the fleet" : "Pause the fleet")
        body += H.table(try await rows(ConsoleQueries.workers), id: "workers")
        return H.page("Workers", who: who, flash: flash, body)
    }

    func webhooks(_ who: SupportCredentials.Operator, flash: String?) async throws -> String {
        var body = "<h2>Endpoints</h2>" + H.table(try await rows(ConsoleQueries.webhookHealth))
        body += H.table(try await rows(ConsoleQueries.endpoints))
        body += "<h2>Failed deliveries</h2>" + H.table(try await rows(ConsoleQueries.failedDeliveries), id: "failed-deliveries")
        body += form(who, "redrive-deliveries", back: "/console/webhooks", label: "Re-drive failed deliveries",
                     fields: "<input name=\"endpoint_id\" placeholder=\"endpoint (all)\" aria-label=\"endpoint\">")
        return H.page("Webhooks", who: who, flash: flash, body)
    }

    func notifications(_ who: SupportCredentials.Operator, flash: String?) async throws -> String {
        var body = H.table(try await rows(ConsoleQueries.notificationHealth))
        body += "<h2>Failed and quarantined</h2>" + H.table(try await rows(ConsoleQueries.troubledNotifications), id: "notifications")
        body += form(who, "redrive-notifications", back: "/console/notifications", label: "Re-drive every quarantined notification")
        return H.page("Notifications", who: who, flash: flash, body)
    }

    func rateBudget(_ who: SupportCredentials.Operator) async throws -> String {
        H.page("App Store Server API rate budget", who: who, flash: nil, H.table(try await rows(ConsoleQueries.rateBudget), id: "rate-budget"))
    }

    func audit(_ who: SupportCredentials.Operator, filter: String?) async throws -> String {
        let filter = filter.flatMap { $0.isEmpty ? nil : String($0) }
        let body = """
            <form method="get" action="/console/audit"><input name="q" placeholder="subject (user:…, job:…) or operator" value="\(H.escape(filter ?? ""))" aria-label="filter"><button>Filter</button></form>
            """ + H.table(try await rows(ConsoleQueries.audit, [filter]), id: "audit", columns: ["id", "at", "actor", "login", "action", "subject", "why", "before", "after"])
        return H.page("Audit log", who: who, flash: nil, body)
    }
}
