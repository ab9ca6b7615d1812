import AppStoreServerAPI
import AppleSignedData
import ArgumentParser
import Foundation
import X509

/// How a command reaches the App Store Server API and trusts what it signs: the App Store Connect
/// key (`.p8`), its key id and issuer id, the app, where Apple is, and which roots signed data
/// must chain to. Each option overrides its `RECEIPTQ_*` variable; the configuration structs hold
/// the defaults. The key's text is read here and never printed.
public struct ServerAPIOptions: ParsableArguments, Sendable {
    @OptionGroup public var inAppPurchaseKey: InAppPurchaseKeyOptions

    @Option(name: .customLong("bundle-ids"),
            help: "Comma-separated bundle ids of your apps; the first is the app the App Store Server API token speaks for (its bid).")
    public var bundleIDs: String?

    /// The earlier spelling of `--bundle-ids` (one app): still accepted, with a warning.
    @Option(name: .customLong("bundle-id"), help: .hidden)
    public var deprecatedBundleId: String?

    @Option(help: "The app's App Store id; production payloads naming another are refused.")
    public var appAppleId: Int64?

    @Option(help: "Server API production base URL. Default: https://api.storekit.itunes.apple.com.")
    public var serverAPIProductionURL: String?

    @Option(help: "Server API sandbox base URL. Default: https://api.storekit-sandbox.itunes.apple.com.")
    public var serverAPISandboxURL: String?

    @Option(help: "A PEM root certificate that replaces Apple's for signed data (repeatable), e.g. the fake App Store's; needs --trust-test-roots. Default: Apple's roots, pinned in the binary.")
    public var signedDataRoot: [String] = []

    @Flag(help: "Allow --signed-data-root to replace Apple's roots: for tests and demos only (logged as a warning with the roots' fingerprints, shown in /readyz and a metric; a worker marks every grant it makes test-roots). Default: off.")
    public var trustTestRoots = false

    @Option(help: "ENDPOINT=REQUESTS_PER_SECOND in production, overriding Apple's table (repeatable), e.g. get_transaction_info=50. Default: Apple's published rates.")
    public var serverAPIRate: [String] = []

    @Option(help: "Sandbox rate as a fraction of production. Default: 0.1.")
    public var serverAPISandboxFactor: Double?

    @Flag(help: "Also check signing chains online (OCSP, Apple's responders): each chain must be valid now and not revoked; a chain that cannot be checked is refused for now (retried). Default: off (chains judged at signedDate, no network).")
    public var onlineRevocationChecks = false

    public init() {}

    public func validate() throws {
        if deprecatedBundleId != nil {
            DeprecatedSpelling.warn("--bundle-id", instead: "--bundle-ids")
        }
    }

    /// The bundle ids from `--bundle-ids` (or its variable); `--bundle-id` (deprecated), which
    /// used to name the token's app beside the worker's `--bundle-ids`, comes first when given.
    public func bundleIdList(_ environment: EnvironmentReader = EnvironmentReader()) -> [String] {
        let listed = bundleIDs.map(EnvironmentReader.split) ?? environment.list("RECEIPTQ_BUNDLE_IDS") ?? []
        guard let deprecatedBundleId else { return listed }
        return [deprecatedBundleId] + listed.filter { $0 != deprecatedBundleId }
    }

    /// Whether App Store Server API credentials were given (a key file).
    public func isConfigured(_ environment: EnvironmentReader = EnvironmentReader()) -> Bool {
        inAppPurchaseKey.keyFile(environment) != nil
    }

    /// The roots signed data must chain to, with or without Server API credentials (StoreKit 2
    /// transactions are verified locally either way). Default: Apple Root CA - G3.
    /// The configured root files, from the option or `RECEIPTQ_SIGNED_DATA_ROOT`; empty: Apple's.
    public func rootPaths(_ environment: EnvironmentReader = EnvironmentReader()) -> [String] {
        signedDataRoot.isEmpty ? (OptionVariable.names(for: "signed-data-root").lazy.compactMap(environment.list).first ?? []) : signedDataRoot
    }

    /// Apple's roots, or test roots with `--trust-test-roots` (`TrustedRoots`).
    public func trustedRoots(_ environment: EnvironmentReader = EnvironmentReader()) throws -> TrustedRoots {
        try TrustedRoots.resolve(paths: rootPaths(environment), trustTestRoots: trustTestRoots, environment)
    }

    /// The verifier of StoreKit 2 transactions and notifications (both environments; the sandbox
    /// unless refused): refuses Apple's root without an app Apple id (`AppleChecks`), and checks
    /// chains online through `ocsp` when `--online-revocation-checks` is on.
    public func transactionVerifier(bundleIds: Set<String>, acceptSandbox: Bool = true, _ environment: EnvironmentReader = EnvironmentReader(),
                                    ocsp: @autoclosure () -> any OCSPRequester) throws -> SignedTransactionVerifier {
        let appAppleId = try appAppleIdValue(environment)
        let roots = try trustedRoots(environment)
        try AppleChecks.requireAppAppleId(appAppleId, roots: roots)
        let revocation: SignedDataVerifier.RevocationChecking =
            try AppleChecks.onlineRevocationChecks(onlineRevocationChecks, environment) ? .ocsp(ocsp()) : .off
        do {
            return try SignedTransactionVerifier(trustedRoots: roots.forSignedData, bundleIds: bundleIds, appAppleId: appAppleId,
                                                 acceptSandbox: acceptSandbox, revocationChecking: revocation)
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError("signed data: \(error)")
        }
    }

    /// The app's App Store id, if given.
    public func appAppleIdValue(_ environment: EnvironmentReader = EnvironmentReader()) throws -> Int64? {
        if let appAppleId { return appAppleId }
        guard let text = environment.string("RECEIPTQ_APP_APPLE_ID") else { return nil }
        guard let value = Int64(text), value > 0 else { throw ConfigurationError("RECEIPTQ_APP_APPLE_ID must be a positive whole number") }
        return value
    }

    /// Everything resolved and checked once; a problem is one `ConfigurationError` naming its setting.
    public func settings(_ environment: EnvironmentReader = EnvironmentReader()) throws -> ServerAPISettings {
        guard let key = try inAppPurchaseKey.key(environment) else {
            throw ConfigurationError("no App Store Connect key: pass --app-store-key-file or set RECEIPTQ_APP_STORE_KEY_FILE")
        }
        guard let issuerId = inAppPurchaseKey.issuerId(environment) else {
            throw ConfigurationError("no issuer id: pass --app-store-issuer-id or set RECEIPTQ_APP_STORE_ISSUER_ID")
        }
        guard let bundleId = bundleIdList(environment).first else {
            throw ConfigurationError("no bundle id: pass --bundle-ids or set RECEIPTQ_BUNDLE_IDS")
        }
        let appAppleId = try appAppleIdValue(environment)
        var api = ServerAPIConfiguration()
        api.productionURL = serverAPIProductionURL ?? environment.string("RECEIPTQ_SERVER_API_PRODUCTION_URL") ?? api.productionURL
        api.sandboxURL = serverAPISandboxURL ?? environment.string("RECEIPTQ_SERVER_API_SANDBOX_URL") ?? api.sandboxURL
        do {
            try api.validate()
        } catch {
            throw ConfigurationError("\(error)")
        }
        let roots = try trustedRoots(environment)
        return ServerAPISettings(key: key, issuerId: issuerId, bundleId: bundleId, appAppleId: appAppleId, api: api,
                                 trustedRoots: roots.forSignedData, limits: try limits())
    }

    private func limits() throws -> ServerAPIRateLimits {
        var overrides: [ServerAPIEndpoint: Double] = [:]
        for entry in serverAPIRate {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let endpoint = ServerAPIEndpoint(rawValue: parts[0]), let rate = Double(parts[1]) else {
                let names = ServerAPIEndpoint.allCases.map(\.rawValue).joined(separator: ", ")
                throw ConfigurationError("--server-api-rate \(entry): expected ENDPOINT=N, ENDPOINT one of \(names)")
            }
            overrides[endpoint] = rate
        }
        let limits = ServerAPIRateLimits(production: overrides, sandboxFactor: serverAPISandboxFactor ?? 0.1)
        do {
            try limits.validate()
        } catch {
            throw ConfigurationError("\(error)")
        }
        return limits
    }
}

/// The Server API settings a command resolved: enough to make token providers, clients and
/// verifiers.
public struct ServerAPISettings: Sendable {
    public var key: AppStoreConnectKey
    public var issuerId: String
    public var bundleId: String
    public var appAppleId: Int64?
    public var api: ServerAPIConfiguration
    public var trustedRoots: [Certificate]
    public var limits: ServerAPIRateLimits

    public func tokens() throws -> AppStoreConnectTokenProvider {
        try AppStoreConnectTokenProvider(configuration: .init(key: key, issuerId: issuerId, bundleId: bundleId))
    }

    public func verifier(for environment: ServerAPIEnvironment) throws -> SignedDataVerifier {
        try SignedDataVerifier(configuration: .init(trustedRoots: trustedRoots, bundleIds: [bundleId],
                                                    environment: environment.signedDataEnvironment, appAppleId: appAppleId))
    }
}
