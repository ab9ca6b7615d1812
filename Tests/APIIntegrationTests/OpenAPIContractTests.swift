import API
import Foundation
import Testing

/// Keeps Sources/API/openapi.json true: every documented operation is served, and the codes the
/// server answers in these probes are documented for that operation.
@Suite("OpenAPI document")
struct OpenAPIContractTests {
    static func document() throws -> [String: Any] {
        // Tests/APITests/OpenAPIContractTests.swift → repository root.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let data = try Data(contentsOf: root.appendingPathComponent("Sources/API/openapi.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// (method, path template) → documented status codes.
    static func operations() throws -> [String: Set<Int>] {
        let paths = try #require(try document()["paths"] as? [String: [String: Any]])
        var result: [String: Set<Int>] = [:]
        for (path, methods) in paths {
            for (method, operation) in methods {
                let responses = (operation as? [String: Any])?["responses"] as? [String: Any] ?? [:]
                result["\(method.uppercased()) \(path)"] = Set(responses.keys.compactMap(Int.init))
            }
        }
        return result
    }

    @Test("the document is OpenAPI 3.1 and lists exactly the served operations")
    func documentListsTheRoutes() throws {
        #expect(try Self.document()["openapi"] as? String == "3.1.0")
        #expect(Set(try Self.operations().keys) == [
            "POST /v1/receipts", "GET /v1/receipts/{id}", "POST /v1/orders", "GET /v1/users/{user_id}/grants",
            "GET /v1/events", "POST /v1/transactions", "GET /v1/users/{user_id}/entitlements", "POST /v1/apple/notifications",
            "GET /v1/users/{user_id}/subscriptions", "PUT /v1/users/{user_id}/consumption-consent", "GET /v1/openapi.json",
            "POST /v1/users/{user_id}/history-syncs", "POST /v1/users/{user_id}/offer-signatures",
            "GET /v1/users/{user_id}/app-transactions", "POST /v1/users/{user_id}/app-transactions",
        ])
    }

    @Test("every status the server answers to valid, unauthenticated, mistyped and malformed probes is documented")
    func answeredCodesAreDocumented() async throws {
        let operations = try Self.operations()
        let api = try await APIHarness.start()
        let receipt = APIHarness.receipt("doc")
        let order: [String: Any] = ["order_id": "doc-1", "user_id": "u", "product_id": "p"]
        let id = try #require(try await api.post("/v1/receipts", json: receipt).json["id"] as? Int)
        let probes: [(String, String, String, () async throws -> HTTPExchange)] = [
            ("POST /v1/receipts", "valid", "", { try await api.post("/v1/receipts", json: APIHarness.receipt("doc2")) }),
            ("POST /v1/receipts", "repeat", "", { try await api.post("/v1/receipts", json: receipt) }),
            ("POST /v1/receipts", "other claims", "", { try await api.post("/v1/receipts", json: APIHarness.receipt("doc", user: "x")) }),
            ("POST /v1/receipts", "no token", "", { try await api.post("/v1/receipts", json: receipt, token: nil) }),
            ("POST /v1/receipts", "bad field", "", { try await api.post("/v1/receipts", json: ["receipt_data": 1]) }),
            ("POST /v1/receipts", "text", "", {
                try await HTTPTestClient.send("POST", api.baseURL + "/v1/receipts", token: APIHarness.token,
                                              rawBody: Data("x".utf8), contentType: "text/plain") }),
            ("GET /v1/receipts/{id}", "valid", "", { try await api.get("/v1/receipts/\(id)") }),
            ("GET /v1/receipts/{id}", "missing", "", { try await api.get("/v1/receipts/987654") }),
            ("GET /v1/receipts/{id}", "bad wait", "", { try await api.get("/v1/receipts/\(id)?wait=x") }),
            ("GET /v1/receipts/{id}", "no token", "", { try await api.get("/v1/receipts/\(id)", token: nil) }),
            ("POST /v1/orders", "valid", "", { try await api.post("/v1/orders", json: order) }),
            ("POST /v1/orders", "repeat", "", { try await api.post("/v1/orders", json: order) }),
            ("POST /v1/orders", "conflict", "", { try await api.post("/v1/orders", json: ["order_id": "doc-1", "user_id": "v", "product_id": "p"]) }),
            ("POST /v1/orders", "bad", "", { try await api.post("/v1/orders", json: [:]) }),
            ("GET /v1/users/{user_id}/grants", "valid", "", { try await api.get("/v1/users/u/grants") }),
            ("GET /v1/users/{user_id}/grants", "bad limit", "", { try await api.get("/v1/users/u/grants?limit=5000") }),
            ("GET /v1/users/{user_id}/grants", "no token", "", { try await api.get("/v1/users/u/grants", token: nil) }),
            ("POST /v1/transactions", "transaction id", "", { try await api.post("/v1/transactions", json: ["transaction_id": "2000001", "user_id": "u"]) }),
            ("POST /v1/transactions", "repeat", "", { try await api.post("/v1/transactions", json: ["transaction_id": "2000001", "user_id": "u"]) }),
            ("POST /v1/transactions", "signed, not configured", "", { try await api.post("/v1/transactions", json: ["signed_transaction": "a.b.c", "user_id": "u"]) }),
            ("POST /v1/transactions", "neither", "", { try await api.post("/v1/transactions", json: ["user_id": "u"]) }),
            ("POST /v1/transactions", "no token", "", { try await api.post("/v1/transactions", json: ["transaction_id": "1", "user_id": "u"], token: nil) }),
            ("GET /v1/users/{user_id}/entitlements", "valid", "", { try await api.get("/v1/users/u/entitlements") }),
            ("GET /v1/users/{user_id}/entitlements", "no token", "", { try await api.get("/v1/users/u/entitlements", token: nil) }),
            ("GET /v1/users/{user_id}/subscriptions", "valid", "", { try await api.get("/v1/users/u/subscriptions") }),
            ("GET /v1/users/{user_id}/subscriptions", "no token", "", { try await api.get("/v1/users/u/subscriptions", token: nil) }),
            ("POST /v1/users/{user_id}/history-syncs", "not an owner", "", {
                try await api.post("/v1/users/u/history-syncs", json: ["original_transaction_id": "2000000000123"]) }),
            ("POST /v1/users/{user_id}/history-syncs", "not an owner, environment named", "", {
                try await api.post("/v1/users/u/history-syncs", json: ["original_transaction_id": "2000000000123", "environment": "Production"]) }),
            ("POST /v1/users/{user_id}/history-syncs", "bad environment", "", {
                try await api.post("/v1/users/u/history-syncs", json: ["original_transaction_id": "1", "environment": "prod"]) }),
            ("POST /v1/users/{user_id}/history-syncs", "no token", "", {
                try await api.post("/v1/users/u/history-syncs", json: ["original_transaction_id": "1"], token: nil) }),
            ("GET /v1/events", "valid", "", { try await api.get("/v1/events?after=0&limit=10") }),
            ("GET /v1/events", "bad after", "", { try await api.get("/v1/events?after=x") }),
            ("GET /v1/events", "no token", "", { try await api.get("/v1/events", token: nil) }),
            ("PUT /v1/users/{user_id}/consumption-consent", "valid", "", {
                try await HTTPTestClient.send("PUT", api.baseURL + "/v1/users/u/consumption-consent", token: APIHarness.token, json: ["consented": true]) }),
            ("PUT /v1/users/{user_id}/consumption-consent", "bad", "", {
                try await HTTPTestClient.send("PUT", api.baseURL + "/v1/users/u/consumption-consent", token: APIHarness.token, json: ["consented": "yes"]) }),
            ("PUT /v1/users/{user_id}/consumption-consent", "no token", "", {
                try await HTTPTestClient.send("PUT", api.baseURL + "/v1/users/u/consumption-consent", json: ["consented": true]) }),
            ("GET /v1/openapi.json", "no token", "", { try await api.get("/v1/openapi.json", token: nil) }),
            // This API was started without an In-App Purchase key (OfferSignatureTests sign with one).
            ("POST /v1/users/{user_id}/offer-signatures", "not configured", "", {
                try await api.post("/v1/users/u/offer-signatures", json: ["type": "promotional_offer", "product_id": "p", "offer_id": "o"]) }),
            ("POST /v1/users/{user_id}/offer-signatures", "bad type", "", {
                try await api.post("/v1/users/u/offer-signatures", json: ["type": "discount"]) }),
            ("GET /v1/users/{user_id}/app-transactions", "valid", "", { try await api.get("/v1/users/u/app-transactions") }),
            ("GET /v1/users/{user_id}/app-transactions", "no token", "", { try await api.get("/v1/users/u/app-transactions", token: nil) }),
            // Without bundle ids this API accepts no signed data (AppTransactionTests submit genuine ones).
            ("POST /v1/users/{user_id}/app-transactions", "not configured", "", {
                try await api.post("/v1/users/u/app-transactions", json: ["signed_app_transaction": "a.b.c"]) }),
            ("POST /v1/users/{user_id}/app-transactions", "missing", "", { try await api.post("/v1/users/u/app-transactions", json: [:]) }),
            ("POST /v1/users/{user_id}/app-transactions", "no token", "", {
                try await api.post("/v1/users/u/app-transactions", json: ["signed_app_transaction": "a.b.c"], token: nil) }),
            ("POST /v1/users/{user_id}/offer-signatures", "no token", "", {
                try await api.post("/v1/users/u/offer-signatures", json: ["type": "promotional_offer"], token: nil) }),
            // Apple sends no token; this API was started without bundle ids, so it cannot verify one yet.
            ("POST /v1/apple/notifications", "not configured", "", {
                try await api.post("/v1/apple/notifications", json: ["signedPayload": "a.b.c"], token: nil) }),
            ("POST /v1/apple/notifications", "no payload", "", { try await api.post("/v1/apple/notifications", json: [:], token: nil) }),
            ("POST /v1/apple/notifications", "text", "", {
                try await HTTPTestClient.send("POST", api.baseURL + "/v1/apple/notifications", token: nil,
                                              rawBody: Data("x".utf8), contentType: "text/plain") }),
        ]
        var probed: Set<String> = []
        for (operation, name, _, probe) in probes {
            let answer = try await probe()
            let documented = try #require(operations[operation], "\(operation) is not documented")
            #expect(documented.contains(answer.status), "\(operation) (\(name)) answered \(answer.status), documented \(documented.sorted())")
            if answer.status >= 400 { #expect(answer.contentType == "application/problem+json", "\(operation) (\(name))") }
            // The headers the document declares are the ones sent.
            if ["POST /v1/receipts", "POST /v1/transactions"].contains(operation), [200, 202].contains(answer.status) {
                #expect(answer.header("Location") == answer.json["status_url"] as? String, "\(operation) (\(name)): Location")
            }
            if [429, 503].contains(answer.status) { #expect(answer.header("Retry-After") != nil, "\(operation) (\(name)): Retry-After") }
            if answer.status == 401 { #expect(answer.header("WWW-Authenticate") != nil, "\(operation) (\(name)): WWW-Authenticate") }
            probed.insert(operation)
        }
        #expect(probed == Set(operations.keys), "operations without a probe: \(Set(operations.keys).subtracting(probed))")
        await api.stop()
    }

    @Test("the API serves this very document at GET /v1/openapi.json, without a token, cacheable and revalidated by ETag")
    func theDocumentIsServed() async throws {
        let api = try await APIHarness.start()
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let file = try Data(contentsOf: root.appendingPathComponent("Sources/API/openapi.json"))
        let served = try await api.get("/v1/openapi.json", token: nil)
        #expect(served.status == 200)
        #expect(served.body == file, "the binary serves another document than Sources/API/openapi.json")
        #expect(served.contentType == "application/json")
        #expect(served.header("Cache-Control") == "public, max-age=300")
        let etag = try #require(served.header("ETag"))
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count == 26)
        let revalidated = try await HTTPTestClient.send("GET", api.baseURL + "/v1/openapi.json", headers: ["If-None-Match": etag])
        #expect(revalidated.status == 304 && revalidated.body.isEmpty)
        #expect(revalidated.header("ETag") == etag)
        let stale = try await HTTPTestClient.send("GET", api.baseURL + "/v1/openapi.json", headers: ["If-None-Match": "\"old\""])
        #expect(stale.status == 200 && stale.body == file)
        // A token changes nothing (and a wrong one is not refused: the route is public).
        #expect(try await api.get("/v1/openapi.json", token: "not-a-token").status == 200)
        await api.stop()
    }

    /// What a client generator and a reader need: a relative server, the headers the API sends
    /// declared where it sends them, and an example for every request and response body and
    /// parameter (their validity against the schemas is checked by Deploy/conformance/openapi_examples.py).
    @Test("servers is relative; Location, Retry-After and WWW-Authenticate are declared; every operation has examples")
    func theDocumentIsComplete() throws {
        let document = try Self.document()
        let servers = try #require(document["servers"] as? [[String: Any]])
        #expect(servers.map { $0["url"] as? String } == ["/"])
        let paths = try #require(document["paths"] as? [String: [String: [String: Any]]])
        func hasExample(_ media: [String: Any]?) -> Bool {
            media?["example"] != nil || !((media?["examples"] as? [String: Any]) ?? [:]).isEmpty
        }
        for (path, methods) in paths {
            for (method, operation) in methods {
                let name = "\(method.uppercased()) \(path)"
                if let body = operation["requestBody"] as? [String: Any] {
                    let content = body["content"] as? [String: [String: Any]] ?? [:]
                    #expect(!content.isEmpty && content.values.allSatisfy(hasExample), "\(name): request without an example")
                }
                for parameter in operation["parameters"] as? [[String: Any]] ?? [] {
                    #expect(parameter["example"] != nil, "\(name): parameter \(parameter["name"] ?? "?") without an example")
                }
                let responses = operation["responses"] as? [String: [String: Any]] ?? [:]
                for (status, response) in responses {
                    let content = response["content"] as? [String: [String: Any]] ?? [:]
                    #expect(content.values.allSatisfy(hasExample), "\(name) \(status): no example")
                    let headers = Set((response["headers"] as? [String: Any] ?? [:]).keys)
                    if status == "429" || status == "503" { #expect(headers.contains("Retry-After"), "\(name) \(status): Retry-After") }
                    if status == "401" { #expect(headers.contains("WWW-Authenticate"), "\(name) \(status): WWW-Authenticate") }
                    if ["/v1/receipts", "/v1/transactions"].contains(path), method == "post", status == "200" || status == "202" {
                        #expect(headers.contains("Location"), "\(name) \(status): Location")
                    }
                }
            }
        }
    }

    @Test("every problem type's status is documented somewhere")
    func problemStatusesAreDocumented() throws {
        let documented = try Self.operations().values.reduce(into: Set<Int>()) { $0.formUnion($1) }
        // 500 is never promised; 405 answers methods the document does not list at all.
        for kind in Problem.Kind.allCases where kind != .internalError && kind != .methodNotAllowed {
            #expect(documented.contains(Int(kind.status.code)), "\(kind)")
        }
    }
}
