/// The protected header of a JWS (RFC 7515 §4.1), limited to what Apple's signed data and
/// App Store Connect tokens use.
public struct JWSHeader: Codable, Hashable, Sendable {
    /// The signature algorithm; this code signs and accepts only `ES256`.
    public var alg: String?
    /// Key id: which App Store Connect key signed a token.
    public var kid: String?
    /// `JWT` for App Store Connect tokens.
    public var typ: String?
    /// The signing chain as standard base64 DER, leaf first (RFC 7515 §4.1.6).
    public var x5c: [String]?

    public init(alg: String? = "ES256", kid: String? = nil, typ: String? = nil, x5c: [String]? = nil) {
        self.alg = alg
        self.kid = kid
        self.typ = typ
        self.x5c = x5c
    }
}
