import Crypto

/// An App Store Connect API private key (the `.p8` file) and its key id. Its `description` shows
/// the key id only, so the key can be logged with a configuration without leaking.
public struct AppStoreConnectKey: @unchecked Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    // @unchecked: swift-crypto 3's private key is not marked Sendable; it is immutable.
    let privateKey: P256.Signing.PrivateKey
    public let keyId: String

    /// - Parameter pem: the `.p8` file's text (`-----BEGIN PRIVATE KEY-----`, PKCS#8, P-256).
    public init(pem: String, keyId: String) throws {
        guard !keyId.isEmpty else { throw AppStoreConnectKeyError.emptyKeyId }
        guard pem.contains("-----BEGIN PRIVATE KEY-----"), pem.contains("-----END PRIVATE KEY-----") else {
            throw AppStoreConnectKeyError.notPEM
        }
        // The underlying error may quote the input; it is replaced, not wrapped.
        guard let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) else {
            throw AppStoreConnectKeyError.notP256PrivateKey
        }
        self.init(privateKey: key, keyId: keyId)
    }

    public init(privateKey: P256.Signing.PrivateKey, keyId: String) {
        self.privateKey = privateKey
        self.keyId = keyId
    }

    /// The public half, to check tokens against (Apple holds the same).
    public var publicKey: P256.Signing.PublicKey { privateKey.publicKey }

    public var description: String { "AppStoreConnectKey(keyId: \(keyId), privateKey: <redacted>)" }
    public var debugDescription: String { description }
}
