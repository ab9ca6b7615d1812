import Foundation

/// A payload Apple signs as a JWS, decoded. The verifier reads these claims to decide whether the
/// payload is for this app, in this environment, and which instant its certificates are judged at.
/// Notification payloads carry bundle id, environment and app Apple id inside `data` (or `summary`)
/// and expose them here.
public protocol SignedPayload: Decodable, Sendable {
    /// When Apple signed the payload, in milliseconds since 1970. The certificate chain must have
    /// been valid at this instant; a payload without it is judged at the current time.
    var signedDate: Int64? { get }
    /// The app the payload is for.
    var bundleId: String? { get }
    /// The environment that signed the payload.
    var environment: AppStoreEnvironment? { get }
    /// The app's App Store id; only production payloads of some kinds carry it.
    var appAppleId: Int64? { get }
    /// The claims this kind of payload always carries, so their absence is a refusal rather than
    /// "nothing to compare". A claim that is present is checked whether or not it is listed.
    static var requiredClaims: SignedPayloadClaims { get }
}

extension SignedPayload {
    /// `signedDate` as a `Date`.
    public var signedAt: Date? { signedDate.map(Date.init(appStoreMilliseconds:)) }
}

/// The app-identifying claims a kind of payload must carry.
public struct SignedPayloadClaims: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let bundleId = SignedPayloadClaims(rawValue: 1 << 0)
    public static let environment = SignedPayloadClaims(rawValue: 1 << 1)
    /// Checked only when the verifier is configured for production with an app Apple id.
    public static let appAppleId = SignedPayloadClaims(rawValue: 1 << 2)
}
