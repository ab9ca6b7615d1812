import AppleSignedData
import ArgumentParser
import X509

/// Whether legacy receipts are verified on this machine (PKCS #7 signature, Apple's chain, bundle
/// id) before they are stored (`receiptq api`) or sent to Apple (`receiptq worker`). `--receipt-check`
/// or `$RECEIPTQ_RECEIPT_CHECK`; default `local`.
public enum ReceiptCheckMode: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// Verify locally; refuse what provably is not Apple's receipt for our apps.
    case local
    /// Store and send every receipt as it comes (the behaviour before local verification).
    case off

    /// The option, else the environment variable, else `local`.
    public static func resolve(_ option: ReceiptCheckMode?, _ environment: EnvironmentReader) throws -> ReceiptCheckMode {
        if let option { return option }
        guard let text = environment.string("RECEIPTQ_RECEIPT_CHECK") else { return .local }
        guard let mode = ReceiptCheckMode(rawValue: text) else { throw ConfigurationError("RECEIPTQ_RECEIPT_CHECK must be local or off") }
        return mode
    }

    /// The verifier for `bundleIds`, trusting `roots` — Apple Inc. Root (which anchors app
    /// receipts) and Apple Root CA - G3, shipped in the binary; or test roots (the fake App
    /// Store's in tests and demos, with `--trust-test-roots`).
    public static func verifier(bundleIds: Set<String>, roots trusted: TrustedRoots) throws -> AppReceiptVerifier {
        guard !bundleIds.isEmpty else {
            throw ConfigurationError("""
                --receipt-check local (the default) needs the bundle ids of your apps (--bundle-ids or RECEIPTQ_BUNDLE_IDS) \
                to tell your receipts from other apps'; set them, or --receipt-check off to pass every receipt on unchecked
                """)
        }
        let roots = trusted.forReceipts
        do {
            return try AppReceiptVerifier(configuration: .init(trustedRoots: roots, bundleIds: bundleIds, environments: [.production, .sandbox]))
        } catch {
            throw ConfigurationError("app receipts: \(error)")
        }
    }
}
