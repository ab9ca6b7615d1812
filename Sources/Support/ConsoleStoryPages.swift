import Foundation
import Hummingbird
import ReceiptQueue

/// The pages of a customer's story: search, a customer, a purchase (whoever holds it), an App
/// Store order at Apple, a job. Their tables are sparse (`ConsoleHTML.table`): a column no row
/// fills is left out, so the few columns a purchase fills fit the screen.
extension ConsolePages {
    func search(_ who: SupportCredentials.Operator, query: String) async throws -> String {
        let now = Date()
        let term = query.trimmingCharacters(in: .whitespaces)
        guard (1...256).contains(term.count) else { return H.page("Search", who: who, flash: nil, "<p>Type a user, transaction, order or job id.</p>") }
        let jobs = try await rows(ConsoleQueries.searchJobs, [term, Int64(term)])
        let grants = try await rows(ConsoleQueries.searchGrants, [term])
        let orders = try await rows(ConsoleQueries.searchOrders, [term])
        let users = Set(grants.map { H.text($0["user_id"]) } + jobs.map { H.text($0["user_id"]) } + orders.map { H.text($0["user_id"]) }).sorted()
        var body = Self.matched(term, jobs: jobs, grants: grants, orders: orders)
        body += "<h2>Customers</h2>" + (users.isEmpty ? "<p class=\"empty\">none</p>"
            : "<ul id=\"customers\">" + users.map { "<li><a href=\"/console/customers/\(H.url($0))\">\(H.escape($0))</a></li>" }.joined() + "</ul>")
        // Search finds; the customer's page pages. A user id matches at most their newest 20 of each.
        let capped = "<p id=\"%@-more\">At most the newest 20 a match: a customer's page above pages all of theirs.</p>"
        body += "<h2>Purchases</h2>" + H.table(grants, ConsoleStoryTables.ledgerGrants, id: "grants", now: now, sparse: true)
            + (grants.count >= 20 ? capped.replacingOccurrences(of: "%@", with: "grants") : "")
        body += "<h2>Jobs</h2>" + H.table(jobs, ConsoleStoryTables.searchJobs, id: "jobs", now: now, sparse: true)
            + (jobs.count >= 20 ? capped.replacingOccurrences(of: "%@", with: "jobs") : "")
        body += "<h2>Orders</h2>" + H.table(orders, ConsoleStoryTables.searchOrders, id: "orders", now: now, sparse: true)
        body += "<p><a href=\"/console/orders/\(H.url(term))\">Look up \(H.escape(term)) as an App Store order id at Apple</a></p>"
        return H.page("Search: \(term)", who: who, flash: nil, body)
    }

    /// A customer's or a purchase's sections after the grants, each under its spec.
    static let storySections: [(key: String, title: String, customer: [ConsoleColumn], purchase: [ConsoleColumn])] = [
        ("subscriptions", "Subscriptions", ConsoleStoryTables.subscriptions, ConsoleStoryTables.subscriptions),
        ("orders", "Orders", ConsoleStoryTables.orders, ConsoleStoryTables.orders),
        ("jobs", "Jobs", ConsoleStoryTables.customerJobs, ConsoleStoryTables.jobs),
        ("notifications", "Notifications", ConsoleStoryTables.notifications, ConsoleStoryTables.notifications),
        ("deliveries", "Webhook deliveries", ConsoleStoryTables.deliveries, ConsoleStoryTables.deliveries),
        ("audit", "Audit", ConsoleStoryTables.audit, ConsoleStoryTables.audit),
    ]

    /// A customer: entitlements now, then their grants (purchases) and jobs paged
    /// (`grants_before`…, `jobs_before`…, `jobs_state`), then the rest of their story.
    func customer(_ who: SupportCredentials.Operator, userID: String, request: Request) async throws -> String {
        let now = Date()
        let flash = Self.parameter(request, "done")
        let query = { (name: String) in Self.parameter(request, name) }
        let jobState = try Self.choice(request, "jobs_state", ConsoleLists.jobStates)
        let grantPaging = try ConsolePaging(query, prefix: "grants_", shape: ConsoleLists.customerGrants.shape)
        let jobPaging = try ConsolePaging(query, prefix: "jobs_", shape: ConsoleLists.customerJobs.shape)
        let grants = try await ConsoleLists.customerGrants.page(grantPaging, [userID], on: operations.readonly)
        let jobs = try await ConsoleLists.customerJobs.page(jobPaging, [userID, jobState], on: operations.readonly)
        let keep = ["grants_before", "grants_after", "grants_size", "jobs_before", "jobs_after", "jobs_size", "jobs_state"]
            .map { ($0, Self.parameter(request, $0) ?? "") }
        let view = H.object(try await operations.customer(userID: userID, without: [.grants, .jobs]))   // paged above
        let back = "/console/customers/" + H.url(userID)
        var body = ""
        body += "<h2>Entitlements</h2>" + H.table(view["entitlements"] as? [[String: Any]] ?? [], ConsoleStoryTables.entitlements,
                                                  id: "entitlements", now: now, sparse: true)
        body += "<h2>Grants</h2>" + H.table(grants.rows, ConsoleStoryTables.customerGrants, id: "grants", now: now, sparse: true,
                                             extra: who.role == .admin ? { row in
                                                 row["revoked_at"] is NSNull || row["revoked_at"] == nil
                                                     ? form(who, "revoke", back: back, label: "Revoke", fields: H.hidden("purchase_key", H.text(row["purchase_key"]))) : ""
                                             } : nil)
        body += H.pager(grantPaging, rows: grants.rows, older: grants.older, newer: grants.newer, path: back, keep: keep, id: "grants-pages")
        body += form(who, "grant", back: back, label: "Grant by hand", fields: H.hidden("user_id", userID)
            + "<input name=\"product_id\" required placeholder=\"product id\" aria-label=\"product id\">"
            + "<input name=\"reference\" required placeholder=\"reference (ticket)\" aria-label=\"reference\">"
            + "<select name=\"product_type\" required aria-label=\"product type\"><option value=\"\">type?</option>"
            + SupportLedger.productTypes.sorted().map { "<option>\($0)</option>" }.joined() + "</select>"
            + "<input name=\"duration_days\" type=\"number\" min=\"1\" max=\"3650\" placeholder=\"days (subscriptions)\" aria-label=\"days of access (subscriptions)\">")
        for section in Self.storySections {
            guard section.key == "jobs" else {
                body += "<h2>\(section.title)</h2>" + H.table(view[section.key] as? [[String: Any]] ?? [], section.customer, id: section.key,
                                                              now: now, sparse: true)
                continue
            }
            body += "<h2>Jobs</h2><form class=\"filter\" method=\"get\" action=\"\(H.escape(back))\"><select name=\"jobs_state\" aria-label=\"job state\">"
                + "<option value=\"\">every state</option>"
                + ConsoleLists.jobStates.map { "<option\($0 == jobState ? " selected" : "")>\($0)</option>" }.joined()
                + "</select><button>Filter</button></form>"
                + H.table(jobs.rows, section.customer, id: "jobs", now: now, sparse: true)
                + H.pager(jobPaging, rows: jobs.rows, older: jobs.older, newer: jobs.newer, path: back, keep: keep, id: "jobs-pages")
        }
        return H.page("Customer \(userID)", who: who, flash: flash, body)
    }

    func purchase(_ who: SupportCredentials.Operator, originalTransactionID: String, flash: String?) async throws -> String {
        let now = Date()
        let view = H.object(try await operations.purchase(originalTransactionID: originalTransactionID))
        let back = "/console/purchases/" + H.url(originalTransactionID)
        var body = form(who, "transfer", back: back, label: "Transfer to account",
                        fields: H.hidden("original_transaction_id", originalTransactionID)
                            + "<input name=\"to_user_id\" required placeholder=\"new owner's user id\" aria-label=\"new owner's user id\">")
        body += form(who, "extend", back: back, label: "Extend renewal (days)",
                     fields: H.hidden("original_transaction_id", originalTransactionID)
                        + "<input name=\"days\" type=\"number\" min=\"1\" max=\"90\" required placeholder=\"days (1–90)\" aria-label=\"days to extend the renewal by (1–90)\">")
        body += "<h2>Timeline</h2>" + H.timeline(try await rows(ConsoleTimeline.sql, [originalTransactionID]), now: now)
        body += "<h2>Grants</h2>" + H.table(view["grants"] as? [[String: Any]] ?? [], ConsoleStoryTables.grants, id: "grants",
                                            now: now, sparse: true)
        for section in Self.storySections where section.key != "orders" {
            body += "<h2>\(section.title)</h2>" + H.table(view[section.key] as? [[String: Any]] ?? [], section.purchase, id: section.key,
                                                          now: now, sparse: true)
        }
        return H.page("Purchase \(originalTransactionID)", who: who, flash: flash, body)
    }

    func order(_ who: SupportCredentials.Operator, orderID: String) async throws -> String {
        let now = Date()
        let view = H.object(try await operations.lookUpOrder(orderID))
        let body = "<p>Apple's environment: \(H.escape(H.text(view["environment"])))</p>"
            + "<h2>Apple's transactions</h2>" + H.table(view["transactions"] as? [[String: Any]] ?? [], ConsoleStoryTables.appleTransactions,
                                                        id: "transactions", now: now, sparse: true)
            + "<h2>Our grants</h2>" + H.table(view["grants"] as? [[String: Any]] ?? [], ConsoleStoryTables.ledgerGrants, id: "grants",
                                              now: now, sparse: true)
        return H.page("Order \(orderID)", who: who, flash: nil, body)
    }

    func job(_ who: SupportCredentials.Operator, id: String, flash: String?) async throws -> String {
        let now = Date()
        guard let number = Int64(id) else { throw SupportError(.invalid, "a job id is a number") }
        let job = try await rows(ConsoleQueries.job, [number])
        guard let row = job.first else { throw SupportError(.notFound, "no job \(number) (it may have been pruned)") }
        let back = "/console/jobs/\(number)"
        var body = H.fields(row, ConsoleStoryTables.job, id: "job", now: now)
        let state = H.text(row["state"])
        if state == "failed" {
            body += form(who, "redrive-jobs", back: back, label: "Re-drive", fields: H.hidden("job", String(number)))
        } else if state == "queued" || state == "timed_out" {
            body += form(who, "discard-jobs", back: back, label: "Discard", fields: H.hidden("job", String(number)))
        }
        body += "<h2>Grant</h2>" + H.table(try await rows(ConsoleQueries.jobGrant, [number]), ConsoleStoryTables.jobGrant, id: "grant",
                                           now: now, sparse: true)
        // A job appends a few events per verdict, delivered once per endpoint: 50 is more than a job
        // has. Should one have more, the page says so rather than cut the story short in silence.
        for (title, id, sql, columns) in [("Events", "events", ConsoleQueries.jobEvents, ConsoleStoryTables.jobEvents),
                                          ("Webhook deliveries", "deliveries", ConsoleQueries.jobDeliveries, ConsoleStoryTables.jobDeliveries)] {
            let found = try await rows(sql, [number])
            body += "<h2>\(title)</h2>" + H.table(Array(found.prefix(50)), columns, id: id, now: now, sparse: true)
            if found.count > 50 {
                body += "<p id=\"\(id)-more\">The first 50, oldest first: this job has more than 50 \(title.lowercased()).</p>"
            }
        }
        body += "<h2>Audit</h2>" + H.table(try await rows(ConsoleQueries.audit, ["job:\(number)"]), ConsoleStoryTables.audit, id: "audit",
                                           now: now, sparse: true)
        return H.page("Job \(number)", who: who, flash: flash, body)
    }
}
