import Foundation

/// The bodies the fake answers with, shaped like Apple's. Written independently of the
/// `AppStore` target's models on purpose: a fake that shared the client's code would agree with
/// the client's bugs.
enum FakeBodies {
    static func serviceUnavailable(delay: Duration) -> FakeAnswer {
        FakeAnswer(
            delay: delay, httpStatus: 503, contentType: "text/html; charset=utf-8",
            body: Array("<html><body><h1>503 Service Unavailable</h1></body></html>".utf8),
            outcome: "http503", validTransactionIDs: [])
    }

    static func maintenancePage(delay: Duration) -> FakeAnswer {
        let page = """
            <!DOCTYPE html><html><head><title>App Store - Maintenance</title></head>
            <body><p>The App Store is temporarily unavailable. Please try again later.</p></body></html>
            """
        return FakeAnswer(
            delay: delay, httpStatus: 200, contentType: "text/html; charset=utf-8",
            body: Array(page.utf8), outcome: "html200", validTransactionIDs: [])
    }

    /// An error status: `{"status": N}`, plus `is-retryable` when given.
    static func status(_ status: Int, isRetryable: Bool? = nil, delay: Duration) -> FakeAnswer {
        var json = "{\"status\":\(status)"
        if let isRetryable { json += ",\"is-retryable\":\(isRetryable)" }
        json += "}"
        return FakeAnswer(
            delay: delay, httpStatus: 200, contentType: "application/json",
            body: Array(json.utf8), outcome: String(status), validTransactionIDs: [])
    }

    static func forced(_ status: Int, receipt: FakeReceipt, endpoint: FakeEndpoint, delay: Duration) -> FakeAnswer {
        if status == 0 || status == 21_006 {
            return valid(status: status, receipt: receipt, endpoint: endpoint, delay: delay)
        }
        return self.status(status, isRetryable: (21_100...21_199).contains(status) ? true : nil, delay: delay)
    }

    /// A valid answer. iOS 7 style (the default): `receipt.in_app` holds every transaction as
    /// the device's receipt had it, and `latest_receipt_info` Apple's server-side copy of the
    /// subscriptions and of anything refunded after the receipt was made (only that copy shows
    /// such a refund); `pending_renewal_info` for subscriptions (the receipt's own, else each
    /// renews to the same product). iOS 6 style (`style: "ios6"`,
    /// the shape of the seeds' example): the first transaction's fields directly in `receipt`,
    /// `bid` for the bundle id, no `in_app`, and `latest_receipt_info` as one object.
    static func valid(status: Int, receipt: FakeReceipt, endpoint: FakeEndpoint, delay: Duration) -> FakeAnswer {
        let environment = endpoint == .production ? "Production" : "Sandbox"
        var response: [String: Any] = ["status": status, "environment": environment]
        let server = receipt.inApp.filter { $0.expiresDateMs != nil || $0.refundedAfterReceipt == true }
        if receipt.style == "ios6", let first = receipt.inApp.first {
            var flat = wire(first, device: true)
            flat["bid"] = receipt.bundleID
            flat["bvrs"] = "1"
            response["receipt"] = flat
            if let latest = server.last { response["latest_receipt_info"] = wire(latest, device: false) }
        } else {
            var object: [String: Any] = [
                "receipt_type": endpoint == .production ? "Production" : "ProductionSandbox",
                "bundle_id": receipt.bundleID, "application_version": "1",
                "in_app": receipt.inApp.map { wire($0, device: true) },
            ]
            if let created = receipt.creationDateMs { object["receipt_creation_date_ms"] = String(created) }
            response["receipt"] = object
            if !server.isEmpty { response["latest_receipt_info"] = server.map { wire($0, device: false) } }
        }
        let subscriptions = receipt.inApp.filter { $0.expiresDateMs != nil }
        if !subscriptions.isEmpty {
            response["pending_renewal_info"] = (receipt.pendingRenewalInfo ?? subscriptions.map { transaction in
                FakePendingRenewal(originalTransactionID: transaction.originalTransactionID, productID: transaction.productID)
            }).map(\.wire)
            response["latest_receipt"] = receipt.base64()
        }
        let body = (try? JSONSerialization.data(withJSONObject: response, options: [.sortedKeys, .withoutEscapingSlashes]))
            .map { Array($0) } ?? Array("{\"status\":\(status)}".utf8)
        return FakeAnswer(
            delay: delay, httpStatus: 200, contentType: "application/json", body: body,
            outcome: String(status), validTransactionIDs: receipt.inApp.map(\.transactionID))
    }

    /// One transaction as Apple writes it (every number a string). The device's copy (`in_app`)
    /// shows a cancellation only if the receipt was made after it; Apple's copy always does.
    private static func wire(_ transaction: FakeTransaction, device: Bool) -> [String: Any] {
        var object: [String: Any] = [
            "quantity": String(transaction.quantity), "product_id": transaction.productID,
            "transaction_id": transaction.transactionID, "original_transaction_id": transaction.originalTransactionID,
            "purchase_date_ms": String(transaction.purchaseDateMs), "original_purchase_date_ms": String(transaction.purchaseDateMs),
            "is_trial_period": "false",
        ]
        if let expires = transaction.expiresDateMs { object["expires_date_ms"] = String(expires) }
        if let line = transaction.webOrderLineItemID { object["web_order_line_item_id"] = line }
        if let ownership = transaction.ownershipType { object["in_app_ownership_type"] = ownership }
        if let token = transaction.appAccountToken { object["app_account_token"] = token }
        if let cancelled = transaction.cancellationDateMs, !(device && transaction.refundedAfterReceipt == true) {
            object["cancellation_date_ms"] = String(cancelled)
            object["cancellation_reason"] = "0"
        }
        return object
    }
}
