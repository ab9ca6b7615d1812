import AppleSignedData
import ArgumentParser
import Foundation
import X509

/// What the API needs to check StoreKit 2 signed transactions before it answers: the apps, the
/// roots a signature must chain to, the app's Apple id, and whether sandbox purchases count.
/// The same variables the workers read (`RECEIPTQ_BUNDLE_IDS`, `RECEIPTQ_SIGNED_DATA_ROOT`,
/// `RECEIPTQ_APP_APPLE_ID`, `RECEIPTQ_REJECT_SANDBOX`).
public struct SignedDataOptions: ParsableArguments, Sendable {
    @Option(name: .customLong("bundle-ids"), help: "Comma-separated bundle ids of your apps; without them signed transactions are refused. Default: none.")
    public var bundleIDs: String?

    @Option(help: "A PEM root certificate that replaces Apple's for signed data (JWS and app receipts; repeatable), e.g. the fake App Store's; needs --trust-test-roots. Default: Apple Root CA - G3 (JWS), Apple Inc. Root and G3 (receipts), pinned in the binary.")
    public var signedDataRoot: [String] = []

    @Flag(help: "Allow --signed-data-root to replace Apple's roots: for tests and demos only (logged as a warning with the roots' fingerprints, shown in /readyz and a metric). Default: off.")
    public var trustTestRoots = false

    @Option(help: "The app's App Store id; production payloads naming another are refused.")
    public var appAppleId: Int64?

    @Flag(help: "Refuse purchases Apple signed in its sandbox. Default: off (accepted).")
    public var rejectSandbox = false

    @Flag(help: "Also check signing chains online (OCSP, Apple's responders): each chain must be valid now and not revoked; a chain that cannot be checked is refused for now (retried). Default: off (chains judged at signedDate, no network).")
    public var onlineRevocationChecks = false

    public init() {}

    /// The bundle ids, from the option or `RECEIPTQ_BUNDLE_IDS`.
    public func bundleIdSet(_ environment: EnvironmentReader = EnvironmentReader()) -> Set<String> {
        Set(bundleIdList(environment))
    }

    /// The bundle ids in the order given: the first is the default app where one is named.
    public func bundleIdList(_ environment: EnvironmentReader = EnvironmentReader()) -> [String] {
        bundleIDs.map(EnvironmentReader.split) ?? environment.list("RECEIPTQ_BUNDLE_IDS") ?? []
    }

    /// The configured root files, from the option or `RECEIPTQ_SIGNED_DATA_ROOT`; empty: Apple's.
    public func rootPaths(_ environment: EnvironmentReader = EnvironmentReader()) -> [String] {
        signedDataRoot.isEmpty ? (OptionVariable.names(for: "signed-data-root").lazy.compactMap(environment.list).first ?? []) : signedDataRoot
    }

    /// Apple's roots, or test roots with `--trust-test-roots` (`TrustedRoots`).
    public func trustedRoots(_ environment: EnvironmentReader = EnvironmentReader()) throws -> TrustedRoots {
        try TrustedRoots.resolve(paths: rootPaths(environment), trustTestRoots: trustTestRoots, environment)
    }

    /// The verifier, or nil when no bundle id is configured. Refuses Apple's root without an app
    /// Apple id (`AppleChecks`); `ocsp` carries the online revocation checks when they are on.
    public func verifier(_ environment: EnvironmentReader = EnvironmentReader(),
                         ocsp: @autoclosure () -> any OCSPRequester = OCSPQueryRequester { _, _ in throw OCSPUnavailable() }) throws -> SignedTransactionVerifier? {
        let bundles = bundleIdSet(environment)
        guard !bundles.isEmpty else { return nil }
        var appleID = appAppleId
        if appleID == nil, let text = environment.string("RECEIPTQ_APP_APPLE_ID") {
            guard let value = Int64(text), value > 0 else { throw ConfigurationError("RECEIPTQ_APP_APPLE_ID must be a positive whole number") }
            appleID = value
        }
        let trusted = try trustedRoots(environment)
        try AppleChecks.requireAppAppleId(appleID, roots: trusted)
        let roots = trusted.forSignedData
        let acceptSandbox = !(try rejectSandbox || environment.flag("RECEIPTQ_REJECT_SANDBOX") == true)
        let revocation: SignedDataVerifier.RevocationChecking =
            try AppleChecks.onlineRevocationChecks(onlineRevocationChecks, environment) ? .ocsp(ocsp()) : .off
        do {
            return try SignedTransactionVerifier(trustedRoots: roots, bundleIds: bundles, appAppleId: appleID, acceptSandbox: acceptSandbox,
                                                 revocationChecking: revocation)
        } catch {
            throw ConfigurationError("signed data: \(error)")
        }
    }
}

extension SignedDataOptions {
    /// Tells Apple's notifications this configuration refuses from forgeries: signed under the
    /// configured roots, or under Apple's root shipped in the binary whatever is configured.
    public func notificationQuarantine(_ environment: EnvironmentReader = EnvironmentReader()) throws -> NotificationQuarantine {
        do {
            return try NotificationQuarantine(configuredRoots: try trustedRoots(environment).forSignedData)
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError("signed data: \(error)")
        }
    }
}

/// The OCSP transport a command did not wire: every query fails, so every payload is refused.
public struct OCSPUnavailable: Error, CustomStringConvertible {
    public init() {}
    public var description: String { "no OCSP transport configured" }
}

/// Root certificates from PEM files (`TrustedRoots` decides whether they may be used).
public enum SignedDataRoots {
    public static func load(_ paths: [String]) throws -> [Certificate] {
        try paths.map { path in
            guard let text = try? String(contentsOfFile: path, encoding: .utf8), let certificate = try? Certificate(pemEncoded: text) else {
                throw ConfigurationError("--signed-data-root / RECEIPTQ_SIGNED_DATA_ROOT: \(path) is not a readable PEM certificate")
            }
            return certificate
        }
    }
}
