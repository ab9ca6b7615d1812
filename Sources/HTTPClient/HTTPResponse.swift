/// One header line of a response, as the server sent it.
public struct HTTPHeader: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A complete HTTP response: the final status, its headers, and the whole body (at most
/// `HTTPClientConfiguration.maxResponseBytes`).
public struct HTTPResponse: Sendable {
    /// The final HTTP status code (interim 1xx responses are skipped).
    public var status: Int
    /// Headers of the final response, in order.
    public var headers: [HTTPHeader]
    /// The body after content decoding.
    public var body: [UInt8]

    public init(status: Int, headers: [HTTPHeader], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of a header, by case-insensitive name.
    public subscript(header name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name.lowercased() == lowered }?.value
    }
}
