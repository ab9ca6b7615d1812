import Foundation
import X509

extension AppReceiptVerifier {
    /// What a receipt verifier trusts and accepts. Every parameter but the app's identity has a default.
    public struct Configuration: Sendable {
        /// The only certificates a receipt's chain may end in; a root the receipt carries is never
        /// trusted. Default: the Apple Inc. Root Certificate (Apple's RSA root, which anchors app
        /// receipts) and Apple Root CA - G3.
        public var trustedRoots: [Certificate]
        /// The apps whose receipts are accepted. Must not be empty.
        public var bundleIds: Set<String>
        /// The environments whose receipts are accepted, from the receipt type: `.production`
        /// (`Production`, `ProductionVPP`), `.sandbox` (`ProductionSandbox`, `ProductionVPPSandbox`).
        /// Must not be empty. Xcode receipts are signed by a local StoreKit certificate, not by
        /// Apple, so they have no Apple chain and never verify here; read them in development with
        /// `UnverifiedAppReceipt`.
        public var environments: Set<AppStoreEnvironment>
        /// Bounds on size and nesting, applied before anything is trusted. Default: `AppReceiptLimits()`.
        public var limits: AppReceiptLimits
        /// How many distinct signing chains stay verified in memory. Apple rotates receipt signing
        /// certificates rarely, so a handful are live at once. Default: 64.
        public var chainCacheCapacity: Int
        /// The wall clock, for receipts without a creation date. Default: `Date.init`.
        public var now: @Sendable () -> Date

        public init(
            trustedRoots: [Certificate] = [AppleRootCertificates.appleIncRoot, AppleRootCertificates.appleRootCAG3],
            bundleIds: Set<String>,
            environments: Set<AppStoreEnvironment>,
            limits: AppReceiptLimits = AppReceiptLimits(),
            chainCacheCapacity: Int = 64,
            now: @escaping @Sendable () -> Date = { Date() }
        ) {
            self.trustedRoots = trustedRoots
            self.bundleIds = bundleIds
            self.environments = environments
            self.limits = limits
            self.chainCacheCapacity = chainCacheCapacity
            self.now = now
        }
    }

    /// A configuration that cannot work, found once at start.
    public enum ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
        case noBundleIds
        case noEnvironments
        case noTrustedRoots
        case chainCacheCapacityNotPositive
        case limitsUnworkable

        public var description: String {
            switch self {
            case .noBundleIds: "app receipt verifier: no bundle ids configured"
            case .noEnvironments: "app receipt verifier: no environments configured"
            case .noTrustedRoots: "app receipt verifier: no trusted roots configured"
            case .chainCacheCapacityNotPositive: "app receipt verifier: chain cache capacity must be at least 1"
            case .limitsUnworkable: "app receipt verifier: limits must be positive, nesting 2...48, certificates at least 2"
            }
        }
    }
}
