import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP exchange as the tests see it.
struct HTTPExchange: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data

    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    /// The problem `type` of an error answer.
    var problemType: String? { json["type"] as? String }
    var contentType: String? { headers.first { $0.key.lowercased() == "content-type" }?.value }
    func header(_ name: String) -> String? { headers.first { $0.key.lowercased() == name.lowercased() }?.value }
}

/// Requests over real HTTP with URLSession (no cookies, no cache).
enum HTTPTestClient {
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        configuration.timeoutIntervalForRequest = 60
        return URLSession(configuration: configuration)
    }()

    static func send(_ method: String, _ url: String, token: String? = nil, json: Any? = nil, rawBody: Data? = nil,
                     contentType: String? = "application/json", headers extra: [String: String] = [:]) async throws -> HTTPExchange {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.cachePolicy = .reloadIgnoringLocalCacheData   // every exchange reaches the server
        for (name, value) in extra { request.setValue(value, forHTTPHeaderField: name) }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let json {
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
        } else if let rawBody {
            request.httpBody = rawBody
        }
        if request.httpBody != nil, let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields { headers["\(key)"] = "\(value)" }
        return HTTPExchange(status: http.statusCode, headers: headers, body: data)
    }
}

extension APIHarness {
    func get(_ path: String, token: String? = APIHarness.token) async throws -> HTTPExchange {
        try await HTTPTestClient.send("GET", baseURL + path, token: token)
    }

    /// GET on the admin listener (no token: it is not on the public port).
    func admin(_ path: String) async throws -> HTTPExchange {
        try await HTTPTestClient.send("GET", adminURL + path)
    }

    func post(_ path: String, json: Any, token: String? = APIHarness.token) async throws -> HTTPExchange {
        try await HTTPTestClient.send("POST", baseURL + path, token: token, json: json)
    }

    /// A valid receipt submission; `seed` makes it distinct.
    static func receipt(_ seed: String, user: String = "user-1", product: String? = "com.example.gems") -> [String: Any] {
        var body: [String: Any] = [
            "receipt_data": Data("receipt-\(seed)-".utf8 + Array(repeating: UInt8(65), count: 64)).base64EncodedString(),
            "transaction_id": "tx-\(seed)", "user_id": user,
        ]
        if let product { body["product_id"] = product }
        return body
    }
}
