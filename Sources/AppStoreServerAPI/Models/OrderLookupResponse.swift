/// Look Up Order ID's answer: `status` 0 (valid: `signedTransactions` are the order's) or 1 (no
/// such order for this app).
public struct OrderLookupResponse: Decodable, Sendable, Hashable {
    public var status: Int?
    public var signedTransactions: [String]?

    public init(status: Int? = nil, signedTransactions: [String]? = nil) {
        self.status = status
        self.signedTransactions = signedTransactions
    }

    /// Apple found the order.
    public var isValid: Bool { status == 0 }

    enum CodingKeys: String, CodingKey { case status, signedTransactions }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        status = c.lenient(.status)
        signedTransactions = c.lenient(.signedTransactions)
    }
}
