import Crypto

/// A verified leaf's P-256 public key, shared between tasks through the chain cache.
///
/// swift-crypto 3 does not mark its key types `Sendable` (4 does). The key is immutable after
/// creation and verification only reads it (BoringSSL's `ECDSA_do_verify` takes a const key), so
/// sharing it is safe; this wrapper is the one place that says so.
struct LeafKey: @unchecked Sendable, Equatable {
    let key: P256.Signing.PublicKey

    static func == (lhs: LeafKey, rhs: LeafKey) -> Bool {
        lhs.key.rawRepresentation == rhs.key.rawRepresentation
    }
}
