import AppleSignedData
import Logging
import Prometheus
import X509

/// The roots Apple's signed data — StoreKit 2 transactions, notifications, app receipts — must
/// chain to. Apple's, pinned in the binary, unless the operator says with `--trust-test-roots`
/// (`RECEIPTQ_TRUST_TEST_ROOTS=1`) that this is a test or a demo and names others with
/// `--signed-data-root` (`RECEIPTQ_SIGNED_DATA_ROOT`), such as the fake App Store's. Trusting a
/// root other than Apple's is never silent: its SHA-256 fingerprint is in the start-up log (a
/// warning), in `/readyz` and in the `receiptq_process_trusted_root_info` metric, and every grant a worker
/// makes while it trusts one is marked `signed_under = 'test-roots'`.
public struct TrustedRoots: Sendable {
    /// The PEM files named; empty: Apple's roots.
    public let paths: [String]
    /// The named roots, parsed; empty: Apple's.
    public let testRoots: [Certificate]

    /// Whether roots other than Apple's replace Apple's.
    public var areTestRoots: Bool { !testRoots.isEmpty }

    /// For StoreKit 2 transactions and notifications: the test roots, else Apple Root CA - G3.
    public var forSignedData: [Certificate] { areTestRoots ? testRoots : [AppleRootCertificates.appleRootCAG3] }

    /// For app receipts: the test roots, else Apple Inc. Root (which anchors receipts) and G3.
    public var forReceipts: [Certificate] {
        areTestRoots ? testRoots : [AppleRootCertificates.appleIncRoot, AppleRootCertificates.appleRootCAG3]
    }

    /// The roots' SHA-256 fingerprints (colon-separated hex, as Apple publishes its own).
    public var fingerprints: [String] { (areTestRoots ? testRoots : forReceipts).map(\.sha256Fingerprint) }

    /// `paths` (the option, else `RECEIPTQ_SIGNED_DATA_ROOT`), allowed only with `trustTestRoots`
    /// (the flag, else `RECEIPTQ_TRUST_TEST_ROOTS`).
    public static func resolve(paths: [String], trustTestRoots flag: Bool, _ environment: EnvironmentReader) throws -> TrustedRoots {
        guard !paths.isEmpty else { return TrustedRoots(paths: [], testRoots: []) }
        guard try flag || environment.flag("RECEIPTQ_TRUST_TEST_ROOTS") == true else {
            throw ConfigurationError("""
                --signed-data-root / RECEIPTQ_SIGNED_DATA_ROOT replace Apple's roots: for tests and demos only. Add --trust-test-roots \
                (or RECEIPTQ_TRUST_TEST_ROOTS=1) to say so; the roots are then logged, shown in /readyz and every grant made is marked test-roots
                """)
        }
        return TrustedRoots(paths: paths, testRoots: try SignedDataRoots.load(paths))
    }

    /// Says, once at start, what is trusted: Apple's roots (info) or test roots (a warning).
    public func log(to logger: Logger) {
        if areTestRoots {
            logger.warning("TRUSTING TEST ROOTS instead of Apple's (--trust-test-roots): every grant made is marked test-roots",
                           metadata: ["roots_sha256": "\(fingerprints)"])
        } else {
            logger.info("trusting Apple's roots", metadata: ["roots_sha256": "\(fingerprints)"])
        }
    }

    /// `receiptq_process_trusted_root_info{sha256, apple}` = 1 per trusted root.
    public func export(to registry: PrometheusCollectorRegistry) {
        for fingerprint in fingerprints {
            registry.makeGauge(descriptor: MetricNameDescriptor(
                metricName: "receiptq_process_trusted_root_info", unitName: "",
                helpText: "1 per root certificate Apple's signed data is verified against, by SHA-256 fingerprint; apple=\"false\": test roots (--trust-test-roots)."),
                               labels: [("sha256", fingerprint), ("apple", areTestRoots ? "false" : "true")]).set(1.0)
        }
    }

    /// What `/readyz` shows of it.
    public var readinessFacts: [String: String] {
        ["trusted_roots": (areTestRoots ? "TEST ROOTS " : "apple ") + fingerprints.joined(separator: ",")]
    }
}
