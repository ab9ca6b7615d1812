import Foundation
import HTTPClient

/// An app's backend as the fraud suite plays it: it passes on whatever its app user sends
/// (receipts, signed transactions, transaction ids — the attacker controls all of them), registers
/// orders, and reads verdicts the way the README tells backends to (`GET /v1/receipts/{id}?wait=`).
/// One per API token; the trusted one is a backend the operator trusts to vouch for its users'
/// transaction-id claims.
struct FraudBackend: Sendable {
    let apiURL: String
    let token: String
    let http: HTTPClient

    func receipt(_ receiptData: String, transaction: String, user: String) async -> FraudAnswer {
        await post("/v1/receipts", ["receipt_data": receiptData, "transaction_id": transaction, "user_id": user])
    }

    /// A StoreKit 2 signed transaction, with whatever else the app claims (`order_id`, `app_account_token`).
    func signed(_ jws: String, user: String, claims: [String: String] = [:]) async -> FraudAnswer {
        await post("/v1/transactions", ["signed_transaction": jws, "user_id": user].merging(claims) { $1 })
    }

    /// A bare transaction id: a claim, proof of nothing unless this backend's token is trusted.
    func claim(_ transaction: String, user: String, claims: [String: String] = [:]) async -> FraudAnswer {
        await post("/v1/transactions", ["transaction_id": transaction, "user_id": user].merging(claims) { $1 })
    }

    /// A restore ("sync purchases") of an original transaction for `user`.
    func restore(_ originalTransactionID: String, user: String) async -> FraudAnswer {
        await post("/v1/users/\(user)/history-syncs", ["original_transaction_id": originalTransactionID])
    }

    func order(_ orderID: String, user: String, product: String, appAccountToken: UUID) async -> FraudAnswer {
        await post("/v1/orders", ["order_id": orderID, "user_id": user, "product_id": product,
                                  "app_account_token": appAccountToken.uuidString.lowercased()])
    }

    /// The job now (`wait` 0) or once final, waiting up to `wait` seconds per request, as long as
    /// `within` allows.
    func status(_ id: Int64, wait: Int = 0, within: Duration = .seconds(20)) async -> FraudAnswer {
        let deadline = ContinuousClock.now + within
        while true {
            let answer = await get("/v1/receipts/\(id)\(wait > 0 ? "?wait=\(wait)" : "")", timeout: .seconds(wait + 10))
            if wait == 0 || answer.final || ContinuousClock.now >= deadline || answer.status != 200 { return answer }
        }
    }

    /// The answer once its job is final: a submission's first answer is usually `pending`.
    func final(_ answer: FraudAnswer, within: Duration = .seconds(20)) async -> FraudAnswer {
        guard let id = answer.id, !answer.final else { return answer }
        return await status(id, wait: 10, within: within)
    }

    /// How many grants the API lists for `user` (nil when the list could not be read).
    func grantCount(of user: String) async -> Int? {
        let response = try? await http.send(.get, url: apiURL + "/v1/users/\(user)/grants", headers: headers, timeout: .seconds(10))
        guard let response, response.status == 200,
              let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any],
              let grants = object["grants"] as? [Any] else { return nil }
        return grants.count
    }

    /// The product ids the API lists as `user`'s entitlements now (nil when they could not be read).
    func entitlements(of user: String) async -> [String]? {
        let response = try? await http.send(.get, url: apiURL + "/v1/users/\(user)/entitlements", headers: headers, timeout: .seconds(10))
        guard let response, response.status == 200,
              let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any],
              let list = object["entitlements"] as? [[String: Any]] else { return nil }
        return list.compactMap { $0["product_id"] as? String }.sorted()
    }

    /// POST /v1/users/{user}/app-transactions: the app's signed AppTransaction, for `user`.
    func appTransaction(_ jws: String, user: String) async -> FraudAnswer {
        await post("/v1/users/\(user)/app-transactions", ["signed_app_transaction": jws])
    }

    /// How many app transactions the API keeps for `user` (nil when they could not be read).
    func appTransactionCount(of user: String) async -> Int? {
        let response = try? await http.send(.get, url: apiURL + "/v1/users/\(user)/app-transactions", headers: headers, timeout: .seconds(10))
        guard let response, response.status == 200,
              let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any],
              let list = object["app_transactions"] as? [Any] else { return nil }
        return list.count
    }

    private var headers: [String: String] { ["Authorization": "Bearer \(token)", "Content-Type": "application/json"] }

    /// POSTs `object`; a request the API could not take (no answer, 503) is sent once more, as a
    /// backend retries.
    private func post(_ path: String, _ object: [String: String]) async -> FraudAnswer {
        let body = Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
        var answer = FraudAnswer(status: 0)
        for attempt in 0..<2 {
            if attempt > 0 { try? await Task.sleep(for: .milliseconds(500)) }
            if let response = try? await http.post(url: apiURL + path, headers: headers, body: body, timeout: .seconds(15)) {
                answer = FraudAnswer(status: response.status, body: response.body)
            }
            if answer.status != 0 && answer.status != 503 { break }
        }
        return answer
    }

    private func get(_ path: String, timeout: Duration) async -> FraudAnswer {
        guard let response = try? await http.send(.get, url: apiURL + path, headers: headers, timeout: timeout) else {
            return FraudAnswer(status: 0)
        }
        return FraudAnswer(status: response.status, body: response.body)
    }
}
