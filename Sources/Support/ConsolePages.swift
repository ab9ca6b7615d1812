import Foundation
import Hummingbird
import Postgres
import ReceiptQueue

/// The console's pages, one method each. Reads go through the read-only login whoever is logged
/// in; forms are rendered for admins only (`form`), each posting to `ConsoleRoutes`' actions.
/// Tables show the columns of their spec (`ConsoleTables`, `ConsoleStoryTables`); times read
/// relative to the moment the page was rendered. The overview and the workers page mark their
/// figures `live` (refreshed in place), never their forms. The customer's story — search,
/// customer, purchase, order, job — is in `ConsoleStoryPages`.
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

    func overview(_ who: SupportCredentials.Operator, flash: String?) async throws -> String {
        let now = Date()
        let fleet = try await operations.fleet()
        var body = H.live("fleet", fleetLine(fleet, now: now))
        body += form(who, fleet.paused ? "resume" : "pause", back: "/console", label: fleet.paused ? "Resume the fleet" : "Pause the fleet")
        let q = ConsoleQueries.self, t = ConsoleTables.self
        body += H.live("queue-depth", "<h2>Jobs: depth</h2>" + H.table(try await rows(q.queueDepth), t.queueDepth, id: "queue-depth", now: now))
        body += H.live("queue-health", "<h2>Jobs: health and throughput</h2>"
            + H.figures(try await rows(q.queueHealth).first, t.queueHealth, id: "queue-health", now: now))
        body += H.live("failure-summary", "<h2>Failures (24 h)</h2>"
            + H.table(try await rows(q.failureSummary), t.failureSummary, id: "failure-summary", now: now))
        body += H.live("notification-health", "<h2>Notifications</h2>"
            + H.transposed(try await rows(q.notificationHealth), t.notificationHealth, id: "notification-health", now: now))
        body += H.live("webhook-health", "<h2>Webhooks</h2>" + H.table(try await rows(q.webhookHealth), t.webhookHealth, id: "webhook-health", now: now))
        body += H.live("consumption", "<h2>Consumption requests</h2>" + H.table(try await rows(q.consumption), t.consumption, id: "consumption", now: now))
        body += H.live("workers", "<h2>Live workers</h2>" + H.table(try await rows(q.workers), t.workers, id: "workers", now: now))
        return H.page("Overview", who: who, flash: flash, refresh: "/console", body)
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

    func failures(_ who: SupportCredentials.Operator, request: Request) async throws -> String {
        let now = Date()
        let query = request.uri.queryParameters
        let state = query.get("state").map { String($0) }.flatMap { ["failed", "rejected", "queued", "timed_out"].contains($0) ? $0 : nil } ?? "failed"
        let status = query.get("apple_status").flatMap { Int($0) }
        let reason = query.get("reason").map { String($0) }.flatMap { $0.isEmpty ? nil : $0 }
        let found = try await rows(ConsoleQueries.failures, [state, status, reason])
        let back = "/console/failures?state=\(H.url(state))" + (status.map { "&apple_status=\($0)" } ?? "") + (reason.map { "&reason=" + H.url($0) } ?? "")
        var body = """
            <form class="filter" method="get" action="/console/failures">
            <select name="state" aria-label="state">\(["failed", "rejected", "queued", "timed_out"].map { "<option\($0 == state ? " selected" : "")>\($0)</option>" }.joined())</select>
            <input name="apple_status" placeholder="Apple status" value="\(status.map { String($0) } ?? "")" aria-label="Apple status">
            <input name="reason" placeholder="reason contains" value="\(H.escape(reason ?? ""))" aria-label="reason"><button>Filter</button></form>
            """
        let table = H.table(found, ConsoleTables.failures, id: "failures", now: now, extraLabel: "Select",
                            extra: who.role == .admin ? { row in "<input type=\"checkbox\" name=\"job\" form=\"bulk\" value=\"\(H.escape(H.text(row["id"])))\" aria-label=\"select job \(H.escape(H.text(row["id"])))\">" } : nil)
        body += "<p>\(ConsoleFormat.grouped(Int64(found.count))) job(s) shown (at most 200).</p>" + table
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

    func workers(_ who: SupportCredentials.Operator, flash: String?) async throws -> String {
        let now = Date()
        let fleet = try await operations.fleet()
        var body = H.live("fleet", fleetLine(fleet, now: now))
        body += form(who, fleet.paused ? "resume" : "pause", back: "/console/workers", label: fleet.paused ? "Resume the fleet" : "Pause the fleet")
        body += H.live("workers", H.table(try await rows(ConsoleQueries.workers), ConsoleTables.workers, id: "workers", now: now))
        return H.page("Workers", who: who, flash: flash, refresh: "/console/workers", body)
    }

    func webhooks(_ who: SupportCredentials.Operator, flash: String?) async throws -> String {
        let now = Date()
        var body = "<h2>Endpoints</h2>" + H.table(try await rows(ConsoleQueries.webhookHealth), ConsoleTables.webhookHealth, id: "webhook-health", now: now)
        body += H.table(try await rows(ConsoleQueries.endpoints), ConsoleTables.endpoints, id: "endpoints", now: now)
        body += "<h2>Failed deliveries</h2>" + H.table(try await rows(ConsoleQueries.failedDeliveries), ConsoleTables.failedDeliveries,
                                                       id: "failed-deliveries", now: now)
        body += form(who, "redrive-deliveries", back: "/console/webhooks", label: "Re-drive failed deliveries",
                     fields: "<input name=\"endpoint_id\" placeholder=\"endpoint (all)\" aria-label=\"endpoint\">")
        return H.page("Webhooks", who: who, flash: flash, body)
    }

    func notifications(_ who: SupportCredentials.Operator, flash: String?) async throws -> String {
        let now = Date()
        var body = H.transposed(try await rows(ConsoleQueries.notificationHealth), ConsoleTables.notificationHealth, id: "notification-health", now: now)
        body += "<h2>Failed and quarantined</h2>" + H.table(try await rows(ConsoleQueries.troubledNotifications), ConsoleTables.troubledNotifications,
                                                            id: "notifications", now: now)
        body += form(who, "redrive-notifications", back: "/console/notifications", label: "Re-drive every quarantined notification")
        return H.page("Notifications", who: who, flash: flash, body)
    }

    func rateBudget(_ who: SupportCredentials.Operator) async throws -> String {
        H.page("App Store Server API rate budget", who: who, flash: nil,
               H.table(try await rows(ConsoleQueries.rateBudget), ConsoleTables.rateBudget, id: "rate-budget", now: Date()))
    }

    func audit(_ who: SupportCredentials.Operator, filter: String?) async throws -> String {
        let filter = filter.flatMap { $0.isEmpty ? nil : String($0) }
        let body = """
            <form class="filter" method="get" action="/console/audit"><input name="q" placeholder="subject (user:…, job:…) or operator" value="\(H.escape(filter ?? ""))" aria-label="filter"><button>Filter</button></form>
            """ + H.table(try await rows(ConsoleQueries.audit, [filter]), ConsoleTables.audit, id: "audit", now: Date())
        return H.page("Audit log", who: who, flash: nil, body)
    }
}
