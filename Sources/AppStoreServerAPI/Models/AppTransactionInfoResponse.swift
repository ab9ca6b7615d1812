/// Get App Transaction Info's answer: the customer's app transaction, signed by Apple.
public struct AppTransactionInfoResponse: Decodable, Sendable, Hashable {
    /// A JWS; verify it with `SignedDataVerifier.verify(_:as: AppTransactionPayload.self)`.
    public var signedAppTransactionInfo: String?

    public init(signedAppTransactionInfo: String? = nil) {
        self.signedAppTransactionInfo = signedAppTransactionInfo
    }

    enum CodingKeys: String, CodingKey { case signedAppTransactionInfo }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        signedAppTransactionInfo = c.lenient(.signedAppTransactionInfo)
    }
}
