import Crypto
import Foundation

/// Signs JSON payloads as compact ES256 JWS (RFC 7515, RFC 7518 §3.4): the fake App Store signs
/// transactions and notifications with it, and `AppStoreConnectTokenProvider` signs its JWTs.
/// The header is encoded once, at creation.
public struct ES256JWSSigner: @unchecked Sendable {
    // @unchecked: swift-crypto 3's private key is not marked Sendable; it is immutable and signing
    // only reads it.
    private let privateKey: P256.Signing.PrivateKey
    /// The encoded header segment every token starts with.
    public let headerSegment: String

    /// - Parameter header: `alg` is forced to `ES256`; add `x5c` (Apple's signed data) or `kid` and
    ///   `typ` (App Store Connect).
    public init(privateKey: P256.Signing.PrivateKey, header: JWSHeader) throws {
        var header = header
        header.alg = "ES256"
        self.privateKey = privateKey
        self.headerSegment = Base64URL.encode(try Self.encoder.encode(header))
    }

    /// `header.payload.signature` for `payload`, JSON-encoded.
    public func sign(_ payload: some Encodable) throws -> String {
        try sign(payloadJSON: Self.encoder.encode(payload))
    }

    /// `header.payload.signature` for payload bytes that are already JSON.
    public func sign(payloadJSON: some DataProtocol) throws -> String {
        let signingInput = headerSegment + "." + Base64URL.encode(payloadJSON)
        let signature = try privateKey.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
