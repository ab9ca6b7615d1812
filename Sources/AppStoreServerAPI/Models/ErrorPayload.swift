/// The body of an App Store Server API error: `{"errorCode": 4040010, "errorMessage": "…"}`.
public struct ErrorPayload: Decodable, Sendable, Hashable {
    public var errorCode: Int64?
    public var errorMessage: String?

    public init(errorCode: Int64? = nil, errorMessage: String? = nil) {
        self.errorCode = errorCode
        self.errorMessage = errorMessage
    }

    enum CodingKeys: String, CodingKey { case errorCode, errorMessage }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        errorCode = c.lenientInt64(.errorCode)
        errorMessage = c.lenient(.errorMessage)
    }

    /// The payload, or `nil` for a body that is not a JSON object (an HTML error page).
    static func decode(_ body: [UInt8]) -> ErrorPayload? {
        ServerAPIJSON.decode(ErrorPayload.self, from: body)
    }
}
