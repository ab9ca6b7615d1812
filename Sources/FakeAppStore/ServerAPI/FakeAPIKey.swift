import Crypto

/// An App Store Connect API key the fake accepts tokens from: the public half only, as Apple
/// holds it, and optionally the key id a token's `kid` must name.
public struct FakeAPIKey: @unchecked Sendable {
    // @unchecked: swift-crypto 3's keys are not marked Sendable; this one is immutable.
    public var keyId: String?
    public var publicKey: P256.Signing.PublicKey

    public init(keyId: String? = nil, publicKey: P256.Signing.PublicKey) {
        self.keyId = keyId
        self.publicKey = publicKey
    }

    /// From a PEM public key (`-----BEGIN PUBLIC KEY-----`) or a `.p8` private key, whose public
    /// half is then used. Returns `nil` for anything else.
    public init?(pem: String, keyId: String? = nil) {
        if let key = try? P256.Signing.PublicKey(pemRepresentation: pem) {
            self.init(keyId: keyId, publicKey: key)
        } else if let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
            self.init(keyId: keyId, publicKey: key.publicKey)
        } else {
            return nil
        }
    }
}
