import Foundation
import Hummingbird
import Postgres
import ReceiptQueue

/// The console's pages, one method each. Reads go through the read-only login whoever is logged
/// in; forms are rendered for admins only (`form`), each posting to `ConsoleRoutes`' actions.
/// Tables show the columns of their spec (`ConsoleTables`, `ConsoleStoryTables`); times read
/// relative to the moment the page was rendered. The overview and the workers page mark their
/// figures `live` (refreshed in place), never their forms. Lists that grow are paged by keyset
/// (`ConsolePaging`, `ConsoleLists`); a bad parameter is a 400 naming it. The customer's story —
/// search, customer, purchase, order, job — is in `ConsoleStoryPages`.
struct ConsolePages: Sendable {
    let operations: SupportOperations
    let auth: ConsoleAuth
    typealias H = ConsoleHTML

    /// The form when `who` may act, else nothing.
    func form(_ who: SupportCredentials.Operator, _ action: String, back: String, label: String, fields: String = "") -> String {
        who.role == .admin ? H.action(action, csrf: auth.csrfToken(for: who), back: back, label: label, fields: fields) : ""
    }

    func rows(_ sql: String, _ parameters: [(any PostgresEncodable)?] = []) async throws -> [[String: Any]] {
        try await ConsoleQueries.run(sql, parameters, on: operations.readonly)
    }

    func overview(_ who: SupportCredentials.Operator, flash: String?, request: Request? = nil) async throws -> String {
        let now = Date()
        let window = try request.flatMap { try Self.choice($0, "window", ConsoleCharts.Window.allCases.map(\.rawValue)) }
            .flatMap(ConsoleCharts.Window.init(rawValue:)) ?? .hour
        let fleet = try await operations.fleet()
        var body = H.live("fleet", fleetLine(fleet, now: now))
        body += form(who, fleet.paused ? "resume" : "pause", back: "/console", label: fleet.paused ? "Resume the fleet" : "Pause the fleet")
        let q = ConsoleQueries.self, t = ConsoleTables.self
        body += H.live("queue-depth", "<h2>Jobs: depth</h2>" + H.table(try await rows(q.queueDepth), t.queueDepth, id: "queue-depth", now: now))
        body += H.live("charts", ConsoleCharts.section(try await ConsoleCharts.read(window, on: operations.readonly), window: window))
        body += H.live("queue-health", "<h2>Jobs: health and throughput</h2>"
            + H.figures(try await rows(q.queueHealth).first, t.queueHealth, id: "queue-health", now: now))
        body += H.live("failure-summary", "<h2>Failures (24 h)</h2>"
            + H.table(try await rows(q.failureSummary), t.failureSummary, id: "failure-summary", now: now))
        body += H.live("notification-health", "<h2>Notifications</h2>"
            + H.transposed(try await rows(q.notificationHealth), t.notificationHealth, id: "notification-health", now: now))
        body += H.live("webhook-health", "<h2>Webhooks</h2>" + H.table(try await rows(q.webhookHealth), t.webhookHealth, id: "webhook-health", now: now))
        body += H.live("consumption", "<h2>Consumption requests</h2>" + H.table(try await rows(q.consumption), t.consumption, id: "consumption", now: now))
        body += H.live("workers", "<h2>Live workers</h2>" + H.table(try await rows(q.workers), t.workers, id: "workers", now: now))
        return H.page("Overview", who: who, flash: flash, refresh: window == .hour ? "/console" : nil, body)
    }

    /// "Fleet: paused by alice 3 min ago — reason", or running (since its last resume).
    func fleetLine(_ fleet: FleetControl.State, now: Date) -> String {
        let by = fleet.changedBy.map { " by " + H.escape($0) } ?? ""
        guard fleet.paused else {
            return "<p class=\"fleet\">Fleet: \(H.badge("running"))"
                + (fleet.changedBy == nil ? "" : " since \(H.time(fleet.changedAt, now: now)) (resumed\(by))") + "</p>"
        }
        return "<p class=\"fleet\">Fleet: \(H.badge("paused"))\(by), \(H.time(fleet.changedAt, now: now))"
            + (fleet.reason.map { " — " + H.escape($0) } ?? "") + "</p>"
    }

    /// A query parameter as text, or nil when absent or empty.
    static func parameter(_ request: Request, _ name: String) -> String? {
        request.uri.queryParameters.get(name).map { String($0) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A filter's value when it is one of `choices`, nil when absent; else a 400 naming it.
    static func choice(_ request: Request, _ name: String, _ choices: [String]) throws(SupportError) -> String? {
        guard let value = parameter(request, name) else { return nil }
        guard choices.contains(value) else {
            throw SupportError(.invalid, "\(name) must be one of \(choices.joined(separator: ", ")), not \"\(value.prefix(40))\"")
        }
        return value
    }

    /// A free-text filter of at most 200 characters; else a 400 naming it.
    static func text(_ request: Request, _ name: String) throws(SupportError) -> String? {
        guard let value = parameter(request, name)?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        guard value.count <= 200 else { throw SupportError(.invalid, "\(name) is longer than 200 characters") }
        return value
    }

    func failures(_ who: SupportCredentials.Operator, request: Request) async throws -> String {
        let now = Date()
        let state = try Self.choice(request, "state", ConsoleLists.failureStates) ?? "failed"
        let statusText = Self.parameter(request, "apple_status")
        let status = try statusText.map { text throws(SupportError) -> Int in
            guard let code = Int(text), (0...99_999).contains(code) else { throw SupportError(.invalid, "apple_status must be a number, such as 21002") }
            return code
        }
        let reason = try Self.text(request, "reason")
        let list = ConsoleLists.failures[state]!
        let paging = try ConsolePaging({ Self.parameter(request, $0) }, shape: list.shape)
        let (found, older, newer) = try await list.page(paging, [status, reason], on: operations.readonly)
        let filters = [("state", state), ("apple_status", status.map { String($0) } ?? ""), ("reason", reason ?? "")]
        let back = "/console/failures?" + filters.filter { !$0.1.isEmpty }.map { $0.0 + "=" + H.url($0.1) }.joined(separator: "&")
        var body = """
            <form class="filter" method="get" action="/console/failures">
            <select name="state" aria-label="state">\(ConsoleLists.failureStates.map { "<option\($0 == state ? " selected" : "")>\($0)</option>" }.joined())</select>
            <input name="apple_status" placeholder="Apple status" value="\(status.map { String($0) } ?? "")" aria-label="Apple status">
            <input name="reason" placeholder="reason contains" value="\(H.escape(reason ?? ""))" aria-label="reason"><button>Filter</button></form>
            """
        let table = H.table(found, ConsoleTables.failures, id: "failures", now: now, extraLabel: "Select",
                            extra: who.role == .admin ? { row in "<input type=\"checkbox\" name=\"job\" form=\"bulk\" value=\"\(H.escape(H.text(row["id"])))\" aria-label=\"select job \(H.escape(H.text(row["id"])))\">" } : nil)
        let pager = H.pager(paging, rows: found, older: older, newer: newer, path: "/console/failures", keep: filters, id: "failures-pages")
        body += "<p class=\"order\">\(state == "queued" ? "Latest next try first." : state == "timed_out" ? "Latest due first." : "Newest first.")</p>"
            + table + pager
        if who.role == .admin && !found.isEmpty {
            body += "<p><label><input type=\"checkbox\" data-select-all=\"job\"> select all</label></p>"
            let csrf = auth.csrfToken(for: who)
            body += """
                <form id="bulk" class="action" method="post" action="/console/actions/\(state == "failed" ? "redrive-jobs" : "discard-jobs")">\
                \(H.hidden("csrf", csrf))\(H.hidden("back", back))<input name="why" required placeholder="why (audited)" aria-label="reason (audited)">\
                <button>\(state == "failed" ? "Re-drive selected" : "Discard selected")</button></form>
                """
        }
        return H.page("Failures", who: who, flash: Self.parameter(request, "done"), body)
    }

    func workers(_ who: SupportCredentials.Operator, flash: String?) async throws -> String {
        let now = Date()
        let fleet = try await operations.fleet()
        var body = H.live("fleet", fleetLine(fleet, now: now))
        body += form(who, fleet.paused ? "resume" : "pause", back: "/console/workers", label: fleet.paused ? "Resume the fleet" : "Pause the fleet")
        body += H.live("workers", H.table(try await rows(ConsoleQueries.workers), ConsoleTables.workers, id: "workers", now: now))
        return H.page("Workers", who: who, flash: flash, refresh: "/console/workers", body)
    }

    func webhooks(_ who: SupportCredentials.Operator, request: Request) async throws -> String {
        let now = Date()
        var body = "<h2>Endpoints</h2>" + H.table(try await rows(ConsoleQueries.webhookHealth), ConsoleTables.webhookHealth, id: "webhook-health", now: now)
        body += H.table(try await rows(ConsoleQueries.endpoints), ConsoleTables.endpoints, id: "endpoints", now: now)
        let endpoint = try Self.text(request, "endpoint")
        let list = ConsoleLists.failedDeliveries
        let paging = try ConsolePaging({ Self.parameter(request, $0) }, shape: list.shape)
        let (found, older, newer) = try await list.page(paging, [endpoint], on: operations.readonly)
        body += "<h2>Failed deliveries</h2>"
            + "<form class=\"filter\" method=\"get\" action=\"/console/webhooks\"><input name=\"endpoint\" placeholder=\"endpoint (all)\" "
            + "value=\"\(H.escape(endpoint ?? ""))\" aria-label=\"endpoint\"><button>Filter</button></form>"
            + H.table(found, ConsoleTables.failedDeliveries, id: "failed-deliveries", now: now)
            + H.pager(paging, rows: found, older: older, newer: newer, path: "/console/webhooks", keep: [("endpoint", endpoint ?? "")],
                      id: "failed-deliveries-pages")
        body += form(who, "redrive-deliveries", back: "/console/webhooks", label: "Re-drive failed deliveries",
                     fields: "<input name=\"endpoint_id\" placeholder=\"endpoint (all)\" aria-label=\"endpoint\">")
        return H.page("Webhooks", who: who, flash: Self.parameter(request, "done"), body)
    }

    func notifications(_ who: SupportCredentials.Operator, request: Request) async throws -> String {
        let now = Date()
        var body = H.transposed(try await rows(ConsoleQueries.notificationHealth), ConsoleTables.notificationHealth, id: "notification-health", now: now)
        let state = try Self.choice(request, "state", ["failed", "quarantined"]) ?? ""
        let type = try Self.text(request, "type")
        let list = ConsoleLists.notifications[state]!
        let paging = try ConsolePaging({ Self.parameter(request, $0) }, shape: list.shape)
        let (found, older, newer) = try await list.page(paging, [type], on: operations.readonly)
        body += "<h2>Failed and quarantined</h2>"
            + "<form class=\"filter\" method=\"get\" action=\"/console/notifications\"><select name=\"state\" aria-label=\"state\">"
            + [("", "failed or quarantined"), ("failed", "failed"), ("quarantined", "quarantined")]
                .map { "<option value=\"\($0.0)\"\($0.0 == state ? " selected" : "")>\($0.1)</option>" }.joined()
            + "</select><input name=\"type\" placeholder=\"type (DID_RENEW…)\" value=\"\(H.escape(type ?? ""))\" aria-label=\"notification type\">"
            + "<button>Filter</button></form>"
            + H.table(found, ConsoleTables.troubledNotifications, id: "notifications", now: now)
            + H.pager(paging, rows: found, older: older, newer: newer, path: "/console/notifications",
                      keep: [("state", state), ("type", type ?? "")], id: "notifications-pages")
        body += form(who, "redrive-notifications", back: "/console/notifications", label: "Re-drive every quarantined notification")
        return H.page("Notifications", who: who, flash: Self.parameter(request, "done"), body)
    }

    func rateBudget(_ who: SupportCredentials.Operator) async throws -> String {
        H.page("App Store Server API rate budget", who: who, flash: nil,
               H.table(try await rows(ConsoleQueries.rateBudget), ConsoleTables.rateBudget, id: "rate-budget", now: Date()))
    }

    /// The audit log: by subject or operator (`q`, as the story pages link it), operator, action.
    func audit(_ who: SupportCredentials.Operator, request: Request) async throws -> String {
        let q = try Self.text(request, "q"), actor = try Self.text(request, "operator"), action = try Self.text(request, "action")
        let list = ConsoleLists.audit
        let paging = try ConsolePaging({ Self.parameter(request, $0) }, shape: list.shape)
        let (found, older, newer) = try await list.page(paging, [q, actor, action], on: operations.readonly)
        let body = """
            <form class="filter" method="get" action="/console/audit">\
            <input name="q" placeholder="subject (user:…, job:…) or operator" value="\(H.escape(q ?? ""))" aria-label="subject or operator">\
            <input name="operator" placeholder="operator" value="\(H.escape(actor ?? ""))" aria-label="operator">\
            <input name="action" placeholder="action (jobs.redrive…)" value="\(H.escape(action ?? ""))" aria-label="action"><button>Filter</button></form>
            """ + H.table(found, ConsoleTables.audit, id: "audit", now: Date())
            + H.pager(paging, rows: found, older: older, newer: newer, path: "/console/audit",
                      keep: [("q", q ?? ""), ("operator", actor ?? ""), ("action", action ?? "")], id: "audit-pages")
        return H.page("Audit log", who: who, flash: nil, body)
    }
}
