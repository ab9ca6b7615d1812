import Foundation
import X509

extension SignedDataVerifier {
    /// What a verifier trusts and accepts. Every parameter but the app's identity has a default.
    public struct Configuration: Sendable {
        /// The only certificates a chain may end in. A root sent inside a message is never trusted.
        /// Default: Apple Root CA - G3 (the fake App Store's root in tests and demos).
        public var trustedRoots: [Certificate]
        /// The apps whose payloads are accepted (several for an app with extensions or variants).
        /// Must not be empty.
        public var bundleIds: Set<String>
        /// The environment payloads must come from.
        public var environment: AppStoreEnvironment
        /// The app's App Store id. In production, a payload that names an app Apple id must name this
        /// one. Default: `nil` (not checked).
        public var appAppleId: Int64?
        /// Online revocation checking. Default: `.off` (chains judged at `signedDate`, no network).
        public var revocationChecking: RevocationChecking
        /// How many distinct signing chains stay verified in memory. Apple rotates signing
        /// certificates rarely, so a handful are live at once. Default: 64.
        public var chainCacheCapacity: Int
        /// The wall clock, for payloads without `signedDate` and for online checks. Default: `Date.init`.
        public var now: @Sendable () -> Date

        public init(
            trustedRoots: [Certificate] = [AppleRootCertificates.appleRootCAG3],
            bundleIds: Set<String>,
            environment: AppStoreEnvironment,
            appAppleId: Int64? = nil,
            revocationChecking: RevocationChecking = .off,
            chainCacheCapacity: Int = 64,
            now: @escaping @Sendable () -> Date = { Date() }
        ) {
            self.trustedRoots = trustedRoots
            self.bundleIds = bundleIds
            self.environment = environment
            self.appAppleId = appAppleId
            self.revocationChecking = revocationChecking
            self.chainCacheCapacity = chainCacheCapacity
            self.now = now
        }
    }

    /// Whether chains are also checked for revocation.
    public enum RevocationChecking: Sendable {
        /// Chains are judged at the payload's `signedDate` only: a certificate that expired or was
        /// revoked later does not invalidate what it signed while valid (Apple's offline mode).
        case off
        /// Chains must also be valid now and not revoked, per OCSP through `requester`; a failed
        /// or unanswered query refuses the payload (hard fail). A verified chain is re-checked
        /// after `recheckAfter`. Default interval: 15 minutes.
        case ocsp(any OCSPRequester, recheckAfter: Duration = .seconds(15 * 60))
    }

    /// A configuration that cannot work, found once at start.
    public enum ConfigurationError: Error, Sendable, CustomStringConvertible {
        case noBundleIds
        case noTrustedRoots
        case chainCacheCapacityNotPositive

        public var description: String {
            switch self {
            case .noBundleIds: "signed data verifier: no bundle ids configured"
            case .noTrustedRoots: "signed data verifier: no trusted roots configured"
            case .chainCacheCapacityNotPositive: "signed data verifier: chain cache capacity must be at least 1"
            }
        }
    }
}
