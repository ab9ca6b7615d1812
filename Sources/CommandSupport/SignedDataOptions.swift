import AppleSignedData
import ArgumentParser
import Foundation
import X509

/// What the API needs to check StoreKit 2 signed transactions before it answers: the apps, the
/// roots a signature must chain to, the app's Apple id, and whether sandbox purchases count.
/// The same variables the workers read (`RECEIPTQ_BUNDLE_IDS`, `RECEIPTQ_SIGNED_DATA_ROOTS`,
/// `RECEIPTQ_APP_APPLE_ID`, `RECEIPTQ_REJECT_SANDBOX`).
public struct SignedDataOptions: ParsableArguments, Sendable {
    @Option(name: .customLong("bundle-ids"), help: "Comma-separated bundle ids of your apps; without them signed transactions are refused. Or $RECEIPTQ_BUNDLE_IDS.")
    public var bundleIDs: String?

    @Option(help: "A PEM root certificate signed data (JWS and app receipts) must chain to (repeatable), e.g. the fake App Store's. Or $RECEIPTQ_SIGNED_DATA_ROOTS (comma-separated files). Default: Apple Root CA - G3 (JWS), Apple Inc. Root and G3 (receipts).")
    public var signedDataRoot: [String] = []

    @Option(help: "The app's App Store id; production payloads naming another are refused. Or $RECEIPTQ_APP_APPLE_ID.")
    public var appAppleId: Int64?

    @Flag(help: "Refuse purchases Apple signed in its sandbox. Or $RECEIPTQ_REJECT_SANDBOX=1.")
    public var rejectSandbox = false

    public init() {}

    /// The bundle ids, from the option or `RECEIPTQ_BUNDLE_IDS`.
    public func bundleIdSet(_ environment: EnvironmentReader = EnvironmentReader()) -> Set<String> {
        Set(bundleIDs.map(EnvironmentReader.split) ?? environment.list("RECEIPTQ_BUNDLE_IDS") ?? [])
    }

    /// The configured root files, from the option or `RECEIPTQ_SIGNED_DATA_ROOTS`; empty: Apple's.
    public func rootPaths(_ environment: EnvironmentReader = EnvironmentReader()) -> [String] {
        signedDataRoot.isEmpty ? (environment.list("RECEIPTQ_SIGNED_DATA_ROOTS") ?? []) : signedDataRoot
    }

    /// The verifier, or nil when no bundle id is configured.
    public func verifier(_ environment: EnvironmentReader = EnvironmentReader()) throws -> SignedTransactionVerifier? {
        let bundles = Set(bundleIDs.map(EnvironmentReader.split) ?? environment.list("RECEIPTQ_BUNDLE_IDS") ?? [])
        guard !bundles.isEmpty else { return nil }
        var appleID = appAppleId
        if appleID == nil, let text = environment.string("RECEIPTQ_APP_APPLE_ID") {
            guard let value = Int64(text), value > 0 else { throw ConfigurationError("RECEIPTQ_APP_APPLE_ID must be a positive whole number") }
            appleID = value
        }
        let roots = try SignedDataRoots.load(signedDataRoot.isEmpty ? (environment.list("RECEIPTQ_SIGNED_DATA_ROOTS") ?? []) : signedDataRoot)
        let acceptSandbox = !(try rejectSandbox || environment.flag("RECEIPTQ_REJECT_SANDBOX") == true)
        do {
            return try SignedTransactionVerifier(trustedRoots: roots, bundleIds: bundles, appAppleId: appleID, acceptSandbox: acceptSandbox)
        } catch {
            throw ConfigurationError("signed data: \(error)")
        }
    }
}

/// Root certificates from PEM files; none given: Apple Root CA - G3, shipped in the binary.
public enum SignedDataRoots {
    public static func load(_ paths: [String]) throws -> [Certificate] {
        guard !paths.isEmpty else { return [AppleRootCertificates.appleRootCAG3] }
        return try paths.map { path in
            guard let text = try? String(contentsOfFile: path, encoding: .utf8), let certificate = try? Certificate(pemEncoded: text) else {
                throw ConfigurationError("--signed-data-root / RECEIPTQ_SIGNED_DATA_ROOTS: \(path) is not a readable PEM certificate")
            }
            return certificate
        }
    }
}
