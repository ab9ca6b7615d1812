import Foundation
import Synchronization

/// Issues App Store Server API tokens and reuses each until shortly before it expires, so a worker
/// making thousands of calls signs about one token per lifetime. Safe to share between tasks.
public final class AppStoreConnectTokenProvider: Sendable {
    public struct Configuration: Sendable, CustomStringConvertible {
        public var key: AppStoreConnectKey
        public var issuerId: String
        public var bundleId: String
        /// How long a token lives; Apple refuses an hour or more. Default: 20 minutes.
        public var lifetime: Duration
        /// A token is replaced this long before it expires, so none expires in flight. Default: 60 s.
        public var refreshMargin: Duration

        public init(key: AppStoreConnectKey, issuerId: String, bundleId: String, lifetime: Duration = .seconds(20 * 60), refreshMargin: Duration = .seconds(60)) {
            self.key = key
            self.issuerId = issuerId
            self.bundleId = bundleId
            self.lifetime = lifetime
            self.refreshMargin = refreshMargin
        }

        public var description: String { "AppStoreConnectTokenProvider.Configuration(\(key), issuerId: \(issuerId), bundleId: \(bundleId), lifetime: \(lifetime))" }
    }

    /// Audience Apple requires.
    static let audience = "appstoreconnect-v1"

    public let configuration: Configuration
    private let signer: ES256JWSSigner
    private let now: @Sendable () -> Date
    private let current = Mutex<AppStoreConnectToken?>(nil)

    /// - Parameter now: the wall clock (tokens carry wall-clock times); injected by tests.
    public init(configuration: Configuration, now: @escaping @Sendable () -> Date = { Date() }) throws {
        guard !configuration.issuerId.isEmpty else { throw AppStoreConnectKeyError.emptyIssuerId }
        guard !configuration.bundleId.isEmpty else { throw AppStoreConnectKeyError.emptyBundleId }
        guard configuration.lifetime < .seconds(3_600), configuration.refreshMargin >= .zero,
              configuration.refreshMargin < configuration.lifetime
        else { throw AppStoreConnectKeyError.lifetimeOutOfRange }
        self.configuration = configuration
        self.now = now
        self.signer = try ES256JWSSigner(
            privateKey: configuration.key.privateKey,
            header: JWSHeader(kid: configuration.key.keyId, typ: "JWT")
        )
    }

    /// The current token, or a new one if it expires within the refresh margin.
    public func token() throws -> AppStoreConnectToken {
        let now = self.now()
        return try current.withLock { current in
            if let token = current, now < token.expiresAt.addingTimeInterval(-configuration.refreshMargin.seconds), now >= token.issuedAt {
                return token
            }
            let token = try issue(at: now)
            current = token
            return token
        }
    }

    private func issue(at now: Date) throws -> AppStoreConnectToken {
        let issuedAt = Int64(now.timeIntervalSince1970.rounded(.down))
        let expiresAt = issuedAt + Int64(configuration.lifetime.seconds)
        let claims = AppStoreConnectClaims(iss: configuration.issuerId, iat: issuedAt, exp: expiresAt, aud: Self.audience, bid: configuration.bundleId)
        return AppStoreConnectToken(
            jwt: try signer.sign(claims),
            issuedAt: Date(timeIntervalSince1970: TimeInterval(issuedAt)),
            expiresAt: Date(timeIntervalSince1970: TimeInterval(expiresAt))
        )
    }
}
