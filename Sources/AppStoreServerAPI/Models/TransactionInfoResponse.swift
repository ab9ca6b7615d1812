/// Get Transaction Info's answer: one transaction, signed by Apple.
public struct TransactionInfoResponse: Decodable, Sendable, Hashable {
    /// A JWS; verify it with `SignedDataVerifier.verifyTransaction`.
    public var signedTransactionInfo: String?

    public init(signedTransactionInfo: String? = nil) {
        self.signedTransactionInfo = signedTransactionInfo
    }

    enum CodingKeys: String, CodingKey { case signedTransactionInfo }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        signedTransactionInfo = c.lenient(.signedTransactionInfo)
    }
}
