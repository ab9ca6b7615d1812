import AppStoreServerAPI
import AppleSignedData
import Foundation
import Postgres
import ReceiptQueue

/// Every support operation, once, for the admin API, the console and `receiptq support`: reads
/// go through the read-only pool, writes through the admin pool (the `receiptq_support` login),
/// each write in one transaction with its audit row. Answers are JSON texts (what the API returns,
/// the console renders and the CLI prints); refusals are `SupportError`.
public struct SupportOperations: Sendable {
    /// `receiptq_readonly`'s login: every read.
    public let readonly: PostgresPool
    /// `receiptq_support`'s login: every write (nil: a read-only deployment; writes refused).
    public let admin: PostgresPool?
    /// Apple, for the operations that ask it (nil: they answer `unavailable`).
    public let apple: SupportApple?

    public init(readonly: PostgresPool, admin: PostgresPool?, apple: SupportApple?) {
        self.readonly = readonly
        self.admin = admin
        self.apple = apple
    }

    // MARK: reads

    /// - Parameter without: sections the caller pages itself (the console: grants and jobs).
    public func customer(userID: String, without: Set<CustomerView.PagedSection> = []) async throws -> String {
        try Self.check(userID, "user id", max: 256)
        return try await readonly.withConnection { try CustomerView.user(userID, without: without, on: $0) }
    }

    public func purchase(originalTransactionID: String) async throws -> String {
        try Self.check(originalTransactionID, "original transaction id", max: 64)
        return try await readonly.withConnection { try CustomerView.purchase(originalTransactionID, on: $0) }
    }

    public func audit(subject: String?, action: String? = nil, limit: Int = 100) async throws -> [AuditEntry] {
        try await readonly.withConnection { try ListAudit.run(subject: subject, action: action, limit: limit, on: $0) }
    }

    public func fleet() async throws -> FleetControl.State {
        try await readonly.withConnection { try FleetControl.read(on: $0) }
    }

    public func workers() async throws -> [WorkerHeartbeats.Worker] {
        try await readonly.withConnection { try WorkerHeartbeats.list(on: $0) }
    }

    // MARK: Apple

    /// Look Up Order ID (production, then the sandbox): Apple's transactions of the order on the
    /// customer's receipt e-mail, verified, with the grants we hold for them.
    public func lookUpOrder(_ orderID: String) async throws -> String {
        try Self.check(orderID, "order id", max: 64)
        let apple = try requireApple()
        var found: (ServerAPIEnvironment, [TransactionPayload])?
        for environment in ServerAPIEnvironment.allCases {
            let transactions = try await Self.asking {
                try await apple.clients.client(for: environment).verifiedLookUpOrderId(orderID, verifier: try apple.verifier(environment))
            }
            if !transactions.isEmpty {
                found = (environment, transactions)
                break
            }
        }
        guard let (environment, transactions) = found else { throw SupportError(.notFound, "Apple knows no order \(orderID) of this app") }
        let ids = transactions.compactMap(\.transactionId)
        let grants: String = try await readonly.withConnection { connection in
            try connection.query("""
                SELECT coalesce(jsonb_agg(to_jsonb(g)), '[]'::jsonb)::text AS grants FROM (
                    SELECT purchase_key, transaction_id, original_transaction_id, user_id, product_id, granted_at, revoked_at, manual_by
                    FROM receiptq.grants WHERE transaction_id = ANY($1::text[])                   -- grants_transaction_idx
                ) g
                """, [ids])[0].decode("grants")
        }
        return "{\"order_id\": \(Self.json(orderID)), \"environment\": \(Self.json(environment.rawValue)), "
            + "\"transactions\": \(try Self.encode(transactions)), \"grants\": \(grants)}"
    }

    /// Get Refund History of the customer who owns `originalTransactionID`, verified, beside
    /// whether our ledger shows each refund.
    public func refundHistory(originalTransactionID: String) async throws -> String {
        try Self.check(originalTransactionID, "original transaction id", max: 64)
        let apple = try requireApple()
        let (environment, refunds) = try await Self.asking {
            try await apple.clients.inEitherEnvironment(startingAt: try await storedEnvironment(of: originalTransactionID)) { client in
                try await client.verifiedRefundHistory(transactionId: originalTransactionID, verifier: try apple.verifier(client.environment))
            }
        }
        let ids = refunds.compactMap(\.transactionId)
        let ledger: String = try await readonly.withConnection { connection in
            try connection.query("""
                SELECT coalesce(jsonb_agg(to_jsonb(g)), '[]'::jsonb)::text AS grants FROM (
                    SELECT purchase_key, transaction_id, user_id, product_id, revoked_at, revocation_reason
                    FROM receiptq.grants WHERE transaction_id = ANY($1::text[])                   -- grants_transaction_idx
                ) g
                """, [ids])[0].decode("grants")
        }
        return "{\"original_transaction_id\": \(Self.json(originalTransactionID)), \"environment\": \(Self.json(environment.rawValue)), "
            + "\"refunds\": \(try Self.encode(refunds)), \"grants\": \(ledger)}"
    }

    /// Extend a Subscription Renewal Date for one subscriber, audited (`subscription.extend`):
    /// before, our subscription row; after, Apple's answer.
    public func extend(originalTransactionID: String, days: Int, reason: ExtendReasonCode, requestIdentifier: String? = nil,
                       _ action: SupportAction) async throws -> String {
        try Self.check(originalTransactionID, "original transaction id", max: 64)
        guard (1...90).contains(days) else { throw SupportError(.invalid, "days must be 1…90 (Apple's limit)") }
        let admin = try requireAdmin(), apple = try requireApple()
        let request = ExtendRenewalDateRequest(extendByDays: days, extendReasonCode: reason,
                                               requestIdentifier: requestIdentifier ?? UUID().uuidString.lowercased())
        let before = try await purchase(originalTransactionID: originalTransactionID)
        let (environment, answer) = try await Self.asking {
            try await apple.clients.inEitherEnvironment(startingAt: try await storedEnvironment(of: originalTransactionID)) {
                try await $0.extendSubscriptionRenewalDate(originalTransactionId: originalTransactionID, request)
            }
        }
        let after = "{\"environment\": \(Self.json(environment.rawValue)), \"request_identifier\": \(Self.json(request.requestIdentifier)), "
            + "\"days\": \(days), \"reason_code\": \(reason.rawValue), \"success\": \(answer.success ?? false), "
            + "\"effective_date\": \(answer.effectiveDate.map(String.init) ?? "null")}"
        let subscriptions = Self.section(before, "subscriptions")
        let audit = try await admin.withConnection { connection in
            try RecordAudit.run(action, "subscription.extend", subject: "original_transaction:" + originalTransactionID,
                                before: "{\"subscriptions\": \(subscriptions)}", after: after, on: connection)
        }
        return String(after.dropLast()) + ", \"audit_id\": \(audit)}"
    }

    /// Extend Subscription Renewal Dates for All Active Subscribers of a product, audited
    /// (`subscription.mass_extend`). Poll `massExtensionStatus` with the answer's request identifier.
    public func massExtend(productID: String, days: Int, reason: ExtendReasonCode, storefronts: [String]?,
                           environment: ServerAPIEnvironment, _ action: SupportAction) async throws -> String {
        try Self.check(productID, "product id", max: 200)
        guard (1...90).contains(days) else { throw SupportError(.invalid, "days must be 1…90 (Apple's limit)") }
        let admin = try requireAdmin(), apple = try requireApple()
        let request = MassExtendRenewalDateRequest(extendByDays: days, extendReasonCode: reason, requestIdentifier: UUID().uuidString.lowercased(),
                                                   productId: productID, storefrontCountryCodes: storefronts)
        let answer = try await Self.asking { try await apple.clients.client(for: environment).extendRenewalDateForAllActiveSubscribers(request) }
        let identifier = answer.requestIdentifier ?? request.requestIdentifier
        let after = "{\"environment\": \(Self.json(environment.rawValue)), \"product_id\": \(Self.json(productID)), "
            + "\"request_identifier\": \(Self.json(identifier)), \"days\": \(days), \"reason_code\": \(reason.rawValue), "
            + "\"storefronts\": \(try Self.encode(storefronts))}"
        let audit = try await admin.withConnection { connection in
            try RecordAudit.run(action, "subscription.mass_extend", subject: "product:" + productID, before: nil, after: after, on: connection)
        }
        return String(after.dropLast()) + ", \"audit_id\": \(audit)}"
    }

    /// A mass extension's progress at Apple.
    public func massExtensionStatus(productID: String, requestIdentifier: String, environment: ServerAPIEnvironment) async throws -> String {
        try Self.check(productID, "product id", max: 200)
        try Self.check(requestIdentifier, "request identifier", max: 128)
        let apple = try requireApple()
        let status = try await Self.asking {
            try await apple.clients.client(for: environment).massExtensionStatus(productId: productID, requestIdentifier: requestIdentifier)
        }
        return "{\"product_id\": \(Self.json(productID)), \"request_identifier\": \(Self.json(requestIdentifier)), "
            + "\"complete\": \(status.complete ?? false), \"complete_date\": \(status.completeDate.map(String.init) ?? "null"), "
            + "\"succeeded_count\": \(status.succeededCount.map(String.init) ?? "null"), "
            + "\"failed_count\": \(status.failedCount.map(String.init) ?? "null")}"
    }

    // MARK: ledger writes

    /// A manual grant; a subscription's access ends at `expiresAt` (`SupportLedger.accessEnd`).
    public func grant(userID: String, productID: String, reference: String, productType: String?, expiresAt: Date? = nil,
                      _ action: SupportAction) async throws -> Int64 {
        try await requireAdmin().withConnection {
            try SupportLedger.grant(action, userID: userID, productID: productID, reference: reference, productType: productType,
                                    expiresAt: expiresAt, on: $0)
        }
    }

    /// An ISO 8601 date and time, with or without fractional seconds.
    public static func parseDate(_ text: String) -> Date? {
        let plain = ISO8601DateFormatter()
        if let date = plain.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)
    }

    public func revoke(purchaseKey: String, _ action: SupportAction) async throws -> Int64 {
        try await requireAdmin().withConnection { try SupportLedger.revoke(action, purchaseKey: purchaseKey, on: $0) }
    }

    /// Transfers a purchase (docs/support.md, Transfer policy). With `appAccountToken` (the new
    /// account's UUID for this app), also Set App Account Token at Apple first, so Apple's later
    /// transactions and notifications name the new account; nothing moves when Apple refuses.
    public func transfer(originalTransactionID: String, toUser: String, appAccountToken: UUID?, _ action: SupportAction) async throws -> Int64 {
        let admin = try requireAdmin()
        if let appAccountToken {
            let apple = try requireApple()
            _ = try await Self.asking {
                try await apple.clients.inEitherEnvironment(startingAt: try await storedEnvironment(of: originalTransactionID)) {
                    try await $0.setAppAccountToken(originalTransactionId: originalTransactionID, appAccountToken: appAccountToken.uuidString.lowercased())
                }
            }
        }
        return try await admin.withConnection {
            try SupportLedger.transfer(action, originalTransactionID: originalTransactionID, toUser: toUser, on: $0)
        }
    }

    // MARK: fleet and queues

    public func setPaused(_ paused: Bool, _ action: SupportAction) async throws -> (FleetControl.State, Int64) {
        try await requireAdmin().withConnection { try FleetControl.set(paused: paused, action, on: $0) }
    }

    public func redriveJobs(ids: [Int64], failedWithin: Duration?, _ action: SupportAction) async throws -> SupportQueues.Moved<Int64> {
        guard ids.isEmpty != (failedWithin == nil) else { throw SupportError(.invalid, "give either job ids or failed_within_seconds") }
        return try await requireAdmin().withConnection { try SupportQueues.redriveJobs(ids: ids, failedWithin: failedWithin, action, on: $0) }
    }

    public func discardJobs(ids: [Int64], _ action: SupportAction) async throws -> SupportQueues.Moved<Int64> {
        guard !ids.isEmpty else { throw SupportError(.invalid, "name the jobs to discard") }
        return try await requireAdmin().withConnection { try SupportQueues.discardJobs(ids: ids, action, on: $0) }
    }

    public func redriveNotifications(uuids: [UUID], _ action: SupportAction) async throws -> SupportQueues.Moved<UUID> {
        try await requireAdmin().withConnection { try SupportQueues.redriveNotifications(uuids: uuids, action, on: $0) }
    }

    public func redriveDeliveries(endpoint: String?, _ action: SupportAction) async throws -> SupportQueues.Moved<Int> {
        try await requireAdmin().withConnection { try SupportQueues.redriveDeliveries(endpoint: endpoint, action, on: $0) }
    }

    // MARK: helpers

    func requireAdmin() throws(SupportError) -> PostgresPool {
        guard let admin else { throw SupportError(.conflict, "this support listener has no admin database login: read-only") }
        return admin
    }

    func requireApple() throws(SupportError) -> SupportApple {
        guard let apple else { throw SupportError(.unavailable, "App Store Server API credentials are not configured (--app-store-key-file …)") }
        return apple
    }

    /// The environment our ledger holds the purchase in (production when unknown).
    func storedEnvironment(of originalTransactionID: String) async throws -> ServerAPIEnvironment {
        let stored: String? = try await readonly.withConnection { connection in
            try connection.query("SELECT environment FROM receiptq.grants WHERE original_transaction_id = $1 LIMIT 1  -- grants_original_idx",
                                 [originalTransactionID]).first?.decode("environment")
        }
        return stored == "Sandbox" ? .sandbox : .production
    }

    /// Runs a call to Apple; Apple's refusals become `SupportError`s an operator can read.
    static func asking<T: Sendable>(_ call: () async throws -> T) async throws -> T {
        do {
            return try await call()
        } catch let error as ServerAPIError {
            switch error.kind {
            case .transactionNotFound, .notFound: throw SupportError(.notFound, "Apple: not found (\(error))")
            case .invalidRequest: throw SupportError(.invalid, "Apple refused the request: \(error)")
            default: throw SupportError(.apple, "Apple could not answer: \(error)")
            }
        }
    }

    static func check(_ value: String, _ name: String, max: Int) throws(SupportError) {
        guard (1...max).contains(value.count) else { throw SupportError(.invalid, "\(name) must have 1 to \(max) characters") }
    }

    /// `value` as a JSON string literal.
    static func json(_ value: String) -> String {
        String(decoding: (try? JSONEncoder().encode(value)) ?? Data("\"\"".utf8), as: UTF8.self)
    }

    static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// One section (an array) of a JSON object text, as JSON text ("[]" when absent).
    static func section(_ object: String, _ name: String) -> String {
        guard let parsed = (try? JSONSerialization.jsonObject(with: Data(object.utf8))) as? [String: Any], let value = parsed[name],
              let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]) else { return "[]" }
        return String(decoding: data, as: UTF8.self)
    }
}
