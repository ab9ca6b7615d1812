import Foundation
import Hummingbird
import Logging
import ReceiptQueue

/// The web console under `/console`: server-rendered pages over `ConsoleQueries` and
/// `SupportOperations`. Every page needs a login (HTTP Basic, `ConsoleAuth`); every action is a
/// POST form with the CSRF token and a reason, carried out by the same audited operation as the
/// admin API, then answered with a redirect back (303) and a one-line result. A read-only
/// operator sees no forms, and their posts are refused (403).
struct ConsoleRoutes: Sendable {
    let operations: SupportOperations
    let auth: ConsoleAuth
    /// Failed logins, shared with the admin API (`SupportHTTP.refused`).
    let failures: AuthFailureLimiter
    var pages: ConsolePages { ConsolePages(operations: operations, auth: auth) }

    init(operations: SupportOperations, credentials: SupportCredentials, failures: AuthFailureLimiter) {
        self.operations = operations
        self.auth = ConsoleAuth(credentials: credentials)
        self.failures = failures
    }

    func register(on router: Router<BasicRequestContext>) {
        router.get("console/console.css") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/css", .cacheControl: "max-age=300"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: ConsoleAssets.css)))
        }
        router.get("console/console.js") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/javascript", .cacheControl: "max-age=300"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: ConsoleAssets.js)))
        }
        let pages = self.pages
        page(router, "console") { request, _, who in try await pages.overview(who, flash: Self.flash(request), request: request) }
        page(router, "console/failures") { request, _, who in try await pages.failures(who, request: request) }
        page(router, "console/search") { request, _, who in try await pages.search(who, query: request.uri.queryParameters.get("q") ?? "") }
        page(router, "console/customers/:user_id") { request, context, who in
            try await pages.customer(who, userID: try context.parameters.id("user_id"), request: request)
        }
        page(router, "console/purchases/:original_transaction_id") { request, context, who in
            try await pages.purchase(who, originalTransactionID: try context.parameters.id("original_transaction_id"), flash: Self.flash(request))
        }
        page(router, "console/orders/:order_id") { _, context, who in try await pages.order(who, orderID: try context.parameters.id("order_id")) }
        page(router, "console/jobs/:id") { request, context, who in
            try await pages.job(who, id: try context.parameters.id("id"), flash: Self.flash(request))
        }
        page(router, "console/workers") { request, _, who in try await pages.workers(who, flash: Self.flash(request)) }
        page(router, "console/webhooks") { request, _, who in try await pages.webhooks(who, request: request) }
        page(router, "console/notifications") { request, _, who in try await pages.notifications(who, request: request) }
        page(router, "console/rate-budget") { _, _, who in try await pages.rateBudget(who) }
        page(router, "console/revenue") { request, _, who in try await pages.revenue(who, request: request) }
        page(router, "console/audit") { request, _, who in try await pages.audit(who, request: request) }
        router.post("console/actions/:action") { request, context in
            try await self.act(request, action: try context.parameters.id("action"))
        }
    }

    private func page(_ router: Router<BasicRequestContext>, _ path: RouterPath,
                      _ render: @escaping @Sendable (Request, BasicRequestContext, SupportCredentials.Operator) async throws -> String) {
        let auth = self.auth, failures = self.failures
        router.get(path) { request, context in
            guard let who = auth.login(request) else { return SupportHTTP.refused(request, failures, challenge: ConsoleAuth.challenge, "log in") }
            do {
                return SupportHTTP.html(try await render(request, context, who))
            } catch let error as SupportError {
                return SupportHTTP.html(ConsoleHTML.page("Not shown", who: who, flash: nil, "<p class=\"error\">\(ConsoleHTML.escape(error.message))</p>"),
                                        status: SupportHTTP.status(of: error))
            } catch {
                // Terse for the page (a database error's description holds no parameters); whole in the log.
                Logger(label: "receiptq.support").error("console page failed", metadata: ["path": "\(request.uri.path)", "error": "\(String(reflecting: error))"])
                return SupportHTTP.html(ConsoleHTML.page("Error", who: who, flash: nil, "<p class=\"error\">This page failed: \(ConsoleHTML.escape("\(error)"))</p>"),
                                        status: .internalServerError)
            }
        }
    }

    static func flash(_ request: Request) -> String? { request.uri.queryParameters.get("done").map { String($0) } }

    /// Carries out one form post: authenticated, admin, genuine (CSRF), with a reason; then back.
    private func act(_ request: Request, action: String) async throws -> Response {
        guard let who = auth.login(request) else { return SupportHTTP.refused(request, failures, challenge: ConsoleAuth.challenge, "log in") }
        guard who.role == .admin else { return SupportHTTP.problem(.forbidden, "\(who.name) is a read-only operator") }
        let form = try await SupportHTTP.form(request)
        guard auth.isGenuine(request, form: form, who: who) else {
            return SupportHTTP.problem(.forbidden, "this form did not come from this console (CSRF check failed): reload the page")
        }
        let value = { (name: String) in form.first { $0.0 == name }?.1.trimmingCharacters(in: .whitespaces) }
        let values = { (name: String) in form.filter { $0.0 == name }.map(\.1) }
        var back = value("back") ?? "/console"
        if !back.hasPrefix("/console") || back.hasPrefix("//") { back = "/console" }
        let result: String
        do {
            let why = try SupportAction(actor: who.name, why: value("why") ?? "")
            result = try await perform(action, value: value, values: values, why)
        } catch let error as SupportError {
            result = "refused: " + error.message
        }
        let separator = back.contains("?") ? "&" : "?"
        return SupportHTTP.redirect(back + separator + "done=" + ConsoleHTML.url(result))
    }

    private func perform(_ action: String, value: (String) -> String?, values: (String) -> [String], _ why: SupportAction) async throws -> String {
        let jobIDs = values("job").compactMap { Int64($0) }
        switch action {
        case "redrive-jobs":
            let moved = try await operations.redriveJobs(ids: jobIDs, failedWithin: nil, why)
            return "re-drove \(moved.ids.count) job(s)" + (moved.audit.map { " (audit #\($0))" } ?? "")
        case "discard-jobs":
            let moved = try await operations.discardJobs(ids: jobIDs, why)
            return "discarded \(moved.ids.count) job(s)" + (moved.audit.map { " (audit #\($0))" } ?? "")
        case "grant":
            let days = value("duration_days").flatMap { $0.isEmpty ? nil : $0 }
            guard days.map({ Int($0) != nil }) ?? true else { throw SupportError(.invalid, "duration_days must be a whole number of days") }
            let audit = try await operations.grant(userID: value("user_id") ?? "", productID: value("product_id") ?? "",
                                                   reference: value("reference") ?? "", productType: value("product_type").flatMap { $0.isEmpty ? nil : $0 },
                                                   expiresAt: try SupportLedger.accessEnd(expiresAt: nil, days: days.flatMap { Int($0) }), why)
            return "granted \(value("product_id") ?? "") by hand (audit #\(audit))"
        case "revoke":
            return "revoked \(value("purchase_key") ?? "") (audit #\(try await operations.revoke(purchaseKey: value("purchase_key") ?? "", why)))"
        case "transfer":
            let audit = try await operations.transfer(originalTransactionID: value("original_transaction_id") ?? "", toUser: value("to_user_id") ?? "",
                                                      appAccountToken: nil, why)
            return "transferred to \(value("to_user_id") ?? "") (audit #\(audit))"
        case "extend":
            _ = try await operations.extend(originalTransactionID: value("original_transaction_id") ?? "", days: Int(value("days") ?? "") ?? 0,
                                            reason: .serviceIssueOrOutage, why)
            return "extended by \(value("days") ?? "") day(s) at Apple"
        case "pause", "resume":
            let (_, audit) = try await operations.setPaused(action == "pause", why)
            return (action == "pause" ? "fleet paused" : "fleet resumed") + " (audit #\(audit))"
        case "redrive-notifications":
            let moved = try await operations.redriveNotifications(uuids: values("notification").compactMap(UUID.init(uuidString:)), why)
            return "re-drove \(moved.ids.count) notification(s)"
        case "redrive-deliveries":
            let endpoint = value("endpoint_id").flatMap { $0.isEmpty ? nil : $0 }
            let moved = try await operations.redriveDeliveries(endpoint: endpoint, why)
            return "re-drove \(moved.ids.first ?? 0) deliveries"
        default:
            throw SupportError(.invalid, "no action \(action)")
        }
    }
}
