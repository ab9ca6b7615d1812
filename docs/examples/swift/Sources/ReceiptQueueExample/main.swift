// ReceiptQueue from a Swift backend: submit a receipt, wait for the verdict, and verify the
// webhook that reports it (Standard Webhooks).
//
// Environment (docs/quickstart.md): RECEIPTQ_URL, RECEIPTQ_TOKEN, RECEIPTQ_WEBHOOK_SECRET (whsec_…),
// WEBHOOK_PORT (default 9400; the endpoint's URL is http://127.0.0.1:$WEBHOOK_PORT/webhook), and
// FAKE_APPSTORE_URL (a receiptq-fake-appstore to mint a test receipt; your app sends real ones).
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let environment = ProcessInfo.processInfo.environment
let api = environment["RECEIPTQ_URL", default: "http://127.0.0.1:8080"].trimmingCharacters(in: CharacterSet(charactersIn: "/"))
let token = environment["RECEIPTQ_TOKEN", default: ""]
let secret = environment["RECEIPTQ_WEBHOOK_SECRET", default: ""]
let fake = environment["FAKE_APPSTORE_URL", default: "http://127.0.0.1:8787"].trimmingCharacters(in: CharacterSet(charactersIn: "/"))
let port = UInt16(environment["WEBHOOK_PORT", default: "9400"]) ?? 9400

/// One JSON request; problems are JSON too.
func call(_ method: String, _ url: String, _ body: [String: Any]? = nil, token: String? = token) async throws -> (Int, HTTPURLResponse, [String: Any]) {
    var request = URLRequest(url: URL(string: url)!, timeoutInterval: 40)
    request.httpMethod = method
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    if let token, !token.isEmpty { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
    if let body { request.httpBody = try JSONSerialization.data(withJSONObject: body) }
    let (data, response) = try await URLSession.shared.data(for: request)
    let http = response as! HTTPURLResponse
    return (http.statusCode, http, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("\(message)\n".utf8))
    exit(1)
}

/// Verified events, by job id.
final class Inbox: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [Int: [String: Any]] = [:]
    func put(_ event: [String: Any]) {
        guard let job = (event["data"] as? [String: Any])?["job_id"] as? Int else { return }
        lock.withLock { events[job] = event }
    }
    func event(job: Int) -> [String: Any]? { lock.withLock { events[job] } }
}

let inbox = Inbox()
let listener = try WebhookListener(port: port)
listener.serve { [secret, inbox] headers, body in
    do {
        try verifyWebhook(secret: secret, headers: headers, body: body)
    } catch {
        FileHandle.standardError.write(Data("webhook refused: \(error)\n".utf8))
        return 401
    }
    // Deduplicate by the event's id (= webhook-id) with the work it causes, then answer 2xx quickly.
    if let event = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] { inbox.put(event) }
    return 204
}

// A test receipt from the fake App Store (in production, the app sends its receipt to you).
let transactionID = environment["TRANSACTION_ID"] ?? String(UInt64.random(in: 1_000_000_000_000...999_999_999_999_999))
let (mintedStatus, _, minted) = try await call("POST", "\(fake)/fake/admin/receipts", [
    "bundle_id": "com.example.app", "environment": "Production",
    "in_app": [["transaction_id": transactionID, "original_transaction_id": transactionID, "product_id": "coins100",
                "quantity": 1, "purchase_date_ms": Int(Date().timeIntervalSince1970 * 1000)]],
], token: nil)
guard mintedStatus == 201, let receiptData = minted["receipt_data"] as? String else { fail("the fake App Store answered \(mintedStatus): \(minted)") }

// 1. Submit: 202 means the receipt is committed; Location is where its verdict will be.
var (status, response, job) = try await call("POST", "\(api)/v1/receipts", [
    "receipt_data": receiptData, "transaction_id": transactionID, "user_id": "swift-example-user", "product_id": "coins100",
])
guard status == 202 || status == 200, let jobID = job["id"] as? Int, let location = response.value(forHTTPHeaderField: "Location") else {
    fail("submit answered \(status): \(job)")
}
print("submitted: HTTP \(status), job \(jobID), \(location)")

// 2. Wait for the verdict: a long-poll answers as soon as it is final (or after 30 s: ask again).
while job["final"] as? Bool != true {
    (status, response, job) = try await call("GET", "\(api)\(location)?wait=30")
    guard status == 200 else { fail("status answered \(status): \(job)") }
}
print("verdict: \(job["verdict"] ?? "?") (state \(job["state"] ?? "?"))")
guard job["verdict"] as? String == "delivered" else { fail("expected delivered: \(job)") }

// 3. The same verdict, pushed: a webhook whose signature was checked above.
let deadline = Date().addingTimeInterval(30)
while Date() < deadline {
    if let event = inbox.event(job: jobID) {
        print("webhook verified: \(event["type"] ?? "?") for job \(jobID) (event \(event["id"] ?? "?"))")
        exit(0)
    }
    try await Task.sleep(nanoseconds: 100_000_000)
}
fail("no webhook for this job within 30 s")
