import Foundation
import HTTPClient

/// The demo's StoreKit 2 half: purchases made in the fake App Store (its admin API plays the
/// device's StoreKit 2), then handed to `POST /v1/transactions` as an app's backend would —
/// signed transactions with and without the order's `appAccountToken`, forged ones (422 at
/// once), refunded ones (not paid), ones refunded after delivery (Apple's REFUND notification
/// revokes the grant), family-shared ones, non-consumables and subscriptions; and,
/// when the workers have App Store Server API credentials, bare transaction ids of an app still
/// on the original StoreKit.
struct DemoStoreKit {
    let apiURL: String
    let adminURL: String
    let token: String
    let http: HTTPClient
    let count: Int
    let lookUps: Bool

    /// Posts everything; returns counts of the API's answers by HTTP status.
    func run() async throws -> [Int: Int] {
        try await withThrowingTaskGroup(of: Int.self) { group in
            var counts: [Int: Int] = [:]
            var next = 0
            for _ in 0..<min(16, count) {
                let n = next
                group.addTask { try await purchase(n) }
                next += 1
            }
            while let status = try await group.next() {
                counts[status, default: 0] += 1
                if next < count {
                    let n = next
                    group.addTask { try await purchase(n) }
                    next += 1
                }
            }
            return counts
        }
    }

    /// One purchase of the mix, chosen by `n % 10`; the status the API answered.
    func purchase(_ n: Int) async throws -> Int {
        let user = "sk2-player\(n % 200)"
        let (product, type): (String, String) = switch n % 10 {
        case 3, 5: ("com.example.pro", "Non-Consumable")
        case 6: ("com.example.monthly", "Auto-Renewable Subscription")
        default: ("com.example.coins500", "Consumable")
        }
        // The backend registers the order first; the app passes its token to StoreKit 2.
        let order = try await api("/v1/orders", ["order_id": "sk2-order-\(n)", "user_id": user, "product_id": product])
        let orderToken = order.json["app_account_token"] as? String
        var request: [String: Any] = ["productId": product, "type": type, "customer": user, "notify": false]
        if n % 10 != 0, let orderToken { request["appAccountToken"] = orderToken }   // 0: bought without the token
        let purchase = try await admin("purchases", request).json
        guard let transactionId = purchase["transactionId"] as? String else { throw BenchError("the fake did not sell: \(purchase)") }
        switch n % 10 {
        case 2:   // refunded before the app's backend heard of it: not paid
            _ = try await admin("refund", ["transactionId": transactionId])
        case 3:   // a family member's copy, submitted by the family member
            let shared = try await admin("family-share", ["transactionId": transactionId, "customer": "\(user)-child"]).json
            let jws = try await signed(shared["transactionId"] as? String ?? "")
            return try await api("/v1/transactions", ["signed_transaction": jws, "user_id": "\(user)-child"]).status
        case 4 where lookUps:   // an original-StoreKit app: only the transaction id
            return try await api("/v1/transactions", ["transaction_id": transactionId, "user_id": user]).status
        default: break
        }
        var jws = try await signed(transactionId)
        if n % 10 == 1 {   // forged: another payload under Apple's signature
            var parts = jws.split(separator: ".").map(String.init)
            let payload = Data(#"{"transactionId":"\#(transactionId)","productId":"com.example.pro","bundleId":"com.example.app","environment":"Production"}"#.utf8)
            parts[1] = payload.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            jws = parts.joined(separator: ".")
        }
        let answer = try await api("/v1/transactions", ["signed_transaction": jws, "user_id": user])
        if n % 10 == 7, let id = answer.json["id"] as? Int {
            // Delivered, then the customer asks Apple for a refund: Apple's REFUND notification
            // reaches the API and the grant is revoked (a grant.revoked event for the backend).
            var final = false
            for _ in 0..<12 where !final {
                final = try await get("/v1/receipts/\(id)?wait=10").json["final"] as? Bool == true
            }
            if final { _ = try await admin("refund", ["transactionId": transactionId]) }
        }
        return answer.status
    }

    private func get(_ path: String) async throws -> Answer {
        let response = try await http.send(.get, url: apiURL + path, headers: ["Authorization": "Bearer \(token)"])
        return Answer(status: response.status,
                      json: (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:])
    }

    struct Answer {
        var status: Int
        var json: [String: Any]
    }

    private func api(_ path: String, _ body: [String: Any]) async throws -> Answer {
        try await send(apiURL + path, body, headers: ["Authorization": "Bearer \(token)"])
    }

    private func admin(_ path: String, _ body: [String: Any]) async throws -> Answer {
        let answer = try await send(adminURL + "/" + path, body, headers: [:])
        guard (200..<300).contains(answer.status) else { throw BenchError("fake admin \(path) answered \(answer.status): \(answer.json)") }
        return answer
    }

    /// What StoreKit 2 hands the app for this transaction now.
    private func signed(_ transactionId: String) async throws -> String {
        guard let jws = try await admin("signed-transaction", ["transactionId": transactionId]).json["signedTransaction"] as? String else {
            throw BenchError("the fake returned no signed transaction")
        }
        return jws
    }

    private func send(_ url: String, _ body: [String: Any], headers: [String: String]) async throws -> Answer {
        let response = try await http.post(url: url, headers: headers.merging(["Content-Type": "application/json"]) { $1 },
                                           body: Array(try JSONSerialization.data(withJSONObject: body)))
        return Answer(status: response.status,
                      json: (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:])
    }
}
