import AppStoreServerAPI
import Foundation
import Hummingbird
import ReceiptQueue

/// The admin API under `/support/v1`: `Authorization: Bearer <token>` of a support credential
/// (never a backend's API token). `readonly` operators may read; writes need `admin`, take a
/// `why` (the audit row's reason) and answer with the audit row's id. Documented in docs/support.md.
struct SupportAPIRoutes: Sendable {
    let operations: SupportOperations
    let credentials: SupportCredentials
    /// Failed logins, shared with the console (`SupportHTTP.refused`).
    let failures: AuthFailureLimiter

    func register(on router: Router<BasicRequestContext>) {
        let v1 = router.group("support/v1")
        v1.get("customers/:user_id") { request, context in
            try await self.read(request) { try await operations.customer(userID: try context.parameters.id("user_id")) }
        }
        v1.get("purchases/:original_transaction_id") { request, context in
            try await self.read(request) { try await operations.purchase(originalTransactionID: try context.parameters.id("original_transaction_id")) }
        }
        v1.get("purchases/:original_transaction_id/refunds") { request, context in
            try await self.read(request) {
                try await operations.refundHistory(originalTransactionID: try context.parameters.id("original_transaction_id"))
            }
        }
        v1.get("orders/:order_id") { request, context in
            try await self.read(request) { try await operations.lookUpOrder(try context.parameters.id("order_id")) }
        }
        v1.get("extensions/:product_id/:request_identifier") { request, context in
            try await self.read(request) {
                try await operations.massExtensionStatus(productID: try context.parameters.id("product_id"),
                                                         requestIdentifier: try context.parameters.id("request_identifier"),
                                                         environment: Self.environment(request.uri.queryParameters.get("environment")))
            }
        }
        v1.get("fleet") { request, _ in try await self.read(request) { try SupportOperations.encode(try await operations.fleet()) } }
        v1.get("workers") { request, _ in try await self.read(request) { try SupportOperations.encode(try await operations.workers()) } }
        v1.get("audit") { request, _ in
            try await self.read(request) {
                let query = request.uri.queryParameters
                return try SupportOperations.encode(try await operations.audit(subject: query.get("subject"), action: query.get("action"),
                                                                               limit: query.get("limit").flatMap { Int($0) } ?? 100))
            }
        }

        v1.post("purchases/:original_transaction_id/extend") { request, context in
            try await self.write(request) { body, action in
                try await operations.extend(originalTransactionID: try context.parameters.id("original_transaction_id"),
                                            days: try body.int("days") ?? 0, reason: try Self.reason(body.int("reason_code")),
                                            requestIdentifier: try body.optionalString("request_identifier"), action)
            }
        }
        v1.post("extensions") { request, _ in
            try await self.write(request) { body, action in
                try await operations.massExtend(productID: try body.string("product_id"), days: try body.int("days") ?? 0,
                                                reason: try Self.reason(body.int("reason_code")),
                                                storefronts: body["storefront_country_codes"] as? [String],
                                                environment: try Self.environment(body.optionalString("environment")), action)
            }
        }
        v1.post("grants") { request, _ in
            try await self.write(request) { body, action in
                let ends = try SupportLedger.accessEnd(expiresAt: try body.optionalDate("expires_at"), days: try body.int("duration_days"))
                let audit = try await operations.grant(userID: try body.string("user_id"), productID: try body.string("product_id"),
                                                       reference: try body.string("reference"), productType: try body.optionalString("product_type"),
                                                       expiresAt: ends, action)
                return "{\"purchase_key\": \(SupportOperations.json("manual:" + (try body.string("reference")))), \"audit_id\": \(audit)}"
            }
        }
        v1.post("grants/:purchase_key/revoke") { request, context in
            try await self.write(request) { _, action in
                "{\"audit_id\": \(try await operations.revoke(purchaseKey: try context.parameters.id("purchase_key"), action))}"
            }
        }
        v1.post("purchases/:original_transaction_id/transfer") { request, context in
            try await self.write(request) { body, action in
                let uuid = try body.optionalString("app_account_token").map { try Self.uuid($0, "app_account_token must be a UUID") }
                let audit = try await operations.transfer(originalTransactionID: try context.parameters.id("original_transaction_id"),
                                                          toUser: try body.string("to_user_id"), appAccountToken: uuid, action)
                return "{\"audit_id\": \(audit)}"
            }
        }
        v1.post("fleet/pause") { request, _ in
            try await self.write(request) { _, action in try SupportOperations.encode(try await operations.setPaused(true, action).0) }
        }
        v1.post("fleet/resume") { request, _ in
            try await self.write(request) { _, action in try SupportOperations.encode(try await operations.setPaused(false, action).0) }
        }
        v1.post("jobs/redrive") { request, _ in
            try await self.write(request) { body, action in
                let ids = (body["job_ids"] as? [Int])?.map(Int64.init) ?? []
                let within = try body.int("failed_within_seconds").map { Duration.seconds($0) }
                return try SupportOperations.encode(try await operations.redriveJobs(ids: ids, failedWithin: within, action))
            }
        }
        v1.post("jobs/discard") { request, _ in
            try await self.write(request) { body, action in
                try SupportOperations.encode(try await operations.discardJobs(ids: (body["job_ids"] as? [Int])?.map(Int64.init) ?? [], action))
            }
        }
        v1.post("notifications/redrive") { request, _ in
            try await self.write(request) { body, action in
                let uuids = try ((body["notification_uuids"] as? [String]) ?? []).map { try Self.uuid($0, "notification_uuids must be UUIDs") }
                return try SupportOperations.encode(try await operations.redriveNotifications(uuids: uuids, action))
            }
        }
        v1.post("deliveries/redrive") { request, _ in
            try await self.write(request) { body, action in
                try SupportOperations.encode(try await operations.redriveDeliveries(endpoint: try body.optionalString("endpoint_id"), action))
            }
        }
    }

    // MARK: authentication and errors

    /// The operator a bearer token names, or nil.
    func bearer(_ request: Request) -> SupportCredentials.Operator? {
        guard let header = request.headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return credentials.authenticate(token: parts[1])
    }

    static let challenge: HTTPFields = [.wwwAuthenticate: "Bearer realm=\"receiptq-support\""]

    func read(_ request: Request, _ body: () async throws -> String) async throws -> Response {
        guard bearer(request) != nil else { return SupportHTTP.refused(request, failures, challenge: Self.challenge, "send Authorization: Bearer <support token>") }
        return try await Self.answering { SupportHTTP.json(try await body()) }
    }

    func write(_ request: Request, _ body: ([String: Any], SupportAction) async throws -> String) async throws -> Response {
        guard let who = bearer(request) else {
            return SupportHTTP.refused(request, failures, challenge: Self.challenge, "send Authorization: Bearer <support token>")
        }
        guard who.role == .admin else { return SupportHTTP.problem(.forbidden, "\(who.name) is a read-only operator") }
        return try await Self.answering {
            let object = try await SupportHTTP.object(request)
            let action = try SupportAction(actor: who.name, why: (object["why"] as? String) ?? "")
            return SupportHTTP.json(try await body(object, action))
        }
    }

    static func answering(_ body: () async throws -> Response) async throws -> Response {
        do {
            return try await body()
        } catch let error as SupportError {
            return SupportHTTP.problem(SupportHTTP.status(of: error), error.message)
        } catch let error as HTTPError where error.status == .notFound {
            return SupportHTTP.problem(.badRequest, "a path parameter is missing")
        }
    }

    /// A UUID from the body, or `invalid` with `message`. A named function rather than a closure
    /// with typed throws inside the route's async closure: that closure crashed the Swift 6.3.1
    /// compiler's release build (LLVM's coroutine split, `emitSetAndGetSwiftErrorValueAround`).
    static func uuid(_ text: String, _ message: String) throws(SupportError) -> UUID {
        guard let uuid = UUID(uuidString: text) else { throw SupportError(.invalid, message) }
        return uuid
    }

    static func reason(_ code: Int?) throws(SupportError) -> ExtendReasonCode {
        guard let reason = ExtendReasonCode(rawValue: code ?? 3) else { throw SupportError(.invalid, "reason_code must be 0…3 (Apple's extendReasonCode)") }
        return reason
    }

    static func environment(_ text: String?) throws(SupportError) -> ServerAPIEnvironment {
        switch text?.lowercased() {
        case nil, "production": .production
        case "sandbox": .sandbox
        default: throw SupportError(.invalid, "environment must be Production or Sandbox")
        }
    }
}
