import Foundation

/// One answer of the fake's Server API or admin half: what the HTTP handler writes (or, for a
/// `refused` outage, the connection it closes without writing).
public struct FakeServerAPIAnswer: Sendable, Equatable {
    public var status: Int
    public var contentType: String
    public var headers: [String: String]
    public var body: [UInt8]
    /// Wait this long before answering.
    public var delay: Duration
    /// Close the connection without an answer.
    public var closeConnection: Bool
    /// Stats key, e.g. `api.get_transaction_info.200`.
    public var outcome: String

    init(status: Int, contentType: String = "application/json", headers: [String: String] = [:], body: [UInt8] = [],
         delay: Duration = .zero, closeConnection: Bool = false, outcome: String = "") {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
        self.delay = delay
        self.closeConnection = closeConnection
        self.outcome = outcome
    }

    static func json(_ status: Int, _ value: some Encodable) -> FakeServerAPIAnswer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return FakeServerAPIAnswer(status: status, body: (try? Array(encoder.encode(value))) ?? Array("{}".utf8))
    }

    /// Apple's error body: `{"errorCode": N, "errorMessage": "…"}`.
    static func appleError(_ status: Int, _ code: Int64, _ message: String) -> FakeServerAPIAnswer {
        json(status, AppleErrorBody(errorCode: code, errorMessage: message))
    }

    /// The admin API's error body: `{"error": "…"}`.
    static func adminError(_ error: FakeAdminError) -> FakeServerAPIAnswer {
        json(error.status, ["error": error.message])
    }

    static func text(_ status: Int, _ text: String, contentType: String = "text/plain; charset=utf-8") -> FakeServerAPIAnswer {
        FakeServerAPIAnswer(status: status, contentType: contentType, body: Array(text.utf8))
    }
}

struct AppleErrorBody: Codable {
    var errorCode: Int64
    var errorMessage: String
}
