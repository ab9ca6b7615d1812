/// Why an App Store Connect key or token configuration was refused. Descriptions name the problem
/// and never echo key material.
public enum AppStoreConnectKeyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text is not a PEM `PRIVATE KEY` block (a `.p8` file from App Store Connect is one).
    case notPEM
    /// The PEM block is not a PKCS#8 P-256 private key.
    case notP256PrivateKey
    case emptyKeyId
    case emptyIssuerId
    case emptyBundleId
    /// Apple refuses tokens that live an hour or more; the refresh margin must fit in the lifetime.
    case lifetimeOutOfRange

    public var description: String {
        switch self {
        case .notPEM: "App Store Connect key: not a PEM PRIVATE KEY block (expected the .p8 file's text)"
        case .notP256PrivateKey: "App Store Connect key: not a PKCS#8 P-256 private key"
        case .emptyKeyId: "App Store Connect key: key id is empty"
        case .emptyIssuerId: "App Store Connect token: issuer id is empty"
        case .emptyBundleId: "App Store Connect token: bundle id is empty"
        case .lifetimeOutOfRange: "App Store Connect token: lifetime must be under 60 minutes and longer than the refresh margin"
        }
    }
}
