import AppleSignedData

/// What the API signs offers with: the In-App Purchase key from App Store Connect (a team's keys
/// sign for every app of the team), the issuer id StoreKit 2 signatures name, and the apps a
/// backend may ask for.
public struct OfferSigning: Sendable, CustomStringConvertible {
    public var key: AppStoreConnectKey
    /// Needed by StoreKit 2 signatures only (their `iss`); nil: those kinds answer 501.
    public var issuerId: String?
    /// The apps signatures may name, the first the default. Never empty.
    public var bundleIds: [String]

    public init(key: AppStoreConnectKey, issuerId: String?, bundleIds: [String]) {
        precondition(!bundleIds.isEmpty, "offer signing needs at least one bundle id")
        self.key = key
        self.issuerId = issuerId
        self.bundleIds = bundleIds
    }

    public var description: String {
        "OfferSigning(keyId: \(key.keyId), issuerId: \(issuerId ?? "none"), bundleIds: \(bundleIds.joined(separator: ",")))"
    }
}
