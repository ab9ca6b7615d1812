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

    /// A valid answer: the receipt, subscriptions in `latest_receipt_info` and `pending_renewal_info`.
    static func valid(status: Int, receipt: FakeReceipt, endpoint: FakeEndpoint, delay: Duration) -> FakeAnswer {
        let transactions = receipt.inApp.map(WireTransaction.init)
        let subscriptions = receipt.inApp.filter { $0.expiresDateMs != nil }
        let response = WireResponse(
            status: status,
            environment: endpoint == .production ? "Production" : "Sandbox",
            receipt: WireReceipt(
                receiptType: endpoint == .production ? "Production" : "ProductionSandbox",
                bundleID: receipt.bundleID, applicationVersion: "1", inApp: transactions),
            latestReceiptInfo: subscriptions.isEmpty ? nil : subscriptions.map(WireTransaction.init),
            pendingRenewalInfo: subscriptions.isEmpty ? nil : subscriptions.map(WireRenewal.init),
            latestReceipt: subscriptions.isEmpty ? nil : receipt.base64())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(response)).map { Array($0) } ?? Array("{\"status\":\(status)}".utf8)
        return FakeAnswer(
            delay: delay, httpStatus: 200, contentType: "application/json", body: body,
            outcome: String(status), validTransactionIDs: receipt.inApp.map(\.transactionID))
    }
}

private struct WireResponse: Encodable {
    let status: Int
    let environment: String
    let receipt: WireReceipt
    let latestReceiptInfo: [WireTransaction]?
    let pendingRenewalInfo: [WireRenewal]?
    let latestReceipt: String?

    enum CodingKeys: String, CodingKey {
        case status, environment, receipt
        case latestReceiptInfo = "latest_receipt_info", pendingRenewalInfo = "pending_renewal_info"
        case latestReceipt = "latest_receipt"
    }
}

private struct WireReceipt: Encodable {
    let receiptType: String
    let bundleID: String
    let applicationVersion: String
    let inApp: [WireTransaction]

    enum CodingKeys: String, CodingKey {
        case receiptType = "receipt_type", bundleID = "bundle_id"
        case applicationVersion = "application_version", inApp = "in_app"
    }
}

/// Apple sends every number here as a string.
private struct WireTransaction: Encodable {
    let quantity: String
    let productID: String
    let transactionID: String
    let originalTransactionID: String
    let purchaseDateMs: String
    let originalPurchaseDateMs: String
    let expiresDateMs: String?
    let isTrialPeriod: String

    init(_ transaction: FakeTransaction) {
        quantity = String(transaction.quantity)
        productID = transaction.productID
        transactionID = transaction.transactionID
        originalTransactionID = transaction.originalTransactionID
        purchaseDateMs = String(transaction.purchaseDateMs)
        originalPurchaseDateMs = String(transaction.purchaseDateMs)
        expiresDateMs = transaction.expiresDateMs.map { String($0) }
        isTrialPeriod = "false"
    }

    enum CodingKeys: String, CodingKey {
        case quantity, productID = "product_id", transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id", purchaseDateMs = "purchase_date_ms"
        case originalPurchaseDateMs = "original_purchase_date_ms", expiresDateMs = "expires_date_ms"
        case isTrialPeriod = "is_trial_period"
    }
}

private struct WireRenewal: Encodable {
    let autoRenewProductID: String
    let productID: String
    let originalTransactionID: String
    let autoRenewStatus: String

    init(_ transaction: FakeTransaction) {
        autoRenewProductID = transaction.productID
        productID = transaction.productID
        originalTransactionID = transaction.originalTransactionID
        autoRenewStatus = "1"
    }

    enum CodingKeys: String, CodingKey {
        case autoRenewProductID = "auto_renew_product_id", productID = "product_id"
        case originalTransactionID = "original_transaction_id", autoRenewStatus = "auto_renew_status"
    }
}
