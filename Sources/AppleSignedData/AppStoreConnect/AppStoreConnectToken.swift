import Foundation

/// A signed App Store Connect API token (a JWT) and when it expires. Its `description` is
/// redacted: a bearer token in a log is a credential in a log.
public struct AppStoreConnectToken: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The compact JWT, for `Authorization: Bearer …`.
    public let jwt: String
    public let issuedAt: Date
    public let expiresAt: Date

    /// The `Authorization` header value.
    public var bearerHeaderValue: String { "Bearer " + jwt }

    public var description: String { "AppStoreConnectToken(<redacted>, expiresAt: \(expiresAt))" }
    public var debugDescription: String { description }
}

/// The claims Apple requires of an App Store Server API token.
struct AppStoreConnectClaims: Codable, Equatable {
    /// Issuer id from App Store Connect → Users and Access → Integrations.
    var iss: String
    /// Issued at, seconds since 1970.
    var iat: Int64
    /// Expiry, seconds since 1970; Apple refuses tokens that live an hour or more.
    var exp: Int64
    var aud: String
    /// The app's bundle id.
    var bid: String
}
