/// One page of Get Refund History (v2): up to 20 refunded transactions of the customer. Ask again
/// with `revision` while `hasMore` is true.
public struct RefundHistoryResponse: Decodable, Sendable, Hashable {
    public var signedTransactions: [String]?
    public var revision: String?
    public var hasMore: Bool?

    public init(signedTransactions: [String]? = nil, revision: String? = nil, hasMore: Bool? = nil) {
        self.signedTransactions = signedTransactions
        self.revision = revision
        self.hasMore = hasMore
    }

    enum CodingKeys: String, CodingKey { case signedTransactions, revision, hasMore }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        signedTransactions = c.lenient(.signedTransactions)
        revision = c.lenient(.revision)
        hasMore = c.lenient(.hasMore)
    }
}
