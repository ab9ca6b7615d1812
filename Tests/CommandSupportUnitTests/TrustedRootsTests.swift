import AppleSignedData
import CommandSupport
import Foundation
import Testing

/// Trusting a root other than Apple's is explicit and loud: refused without --trust-test-roots,
/// and named by its fingerprint wherever an operator looks.
@Suite("Trusted roots: Apple's, unless test roots are asked for by name")
struct TrustedRootsTests {
    /// A PEM file holding a root certificate (Apple's G3 stands in for a test CA's: only the file matters here).
    static func rootFile() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("receiptq-test-root-\(UUID().uuidString).pem").path
        try AppleRootCertificates.appleRootCAG3PEM.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func withoutTheFlagATestRootIsRefusedNamingIt() throws {
        let file = try Self.rootFile()
        let error = #expect(throws: ConfigurationError.self) {
            try TrustedRoots.resolve(paths: [file], trustTestRoots: false, EnvironmentReader([:]))
        }
        #expect(error.map { "\($0)".contains("--trust-test-roots") && "\($0)".contains("RECEIPTQ_TRUST_TEST_ROOTS") } == true)
    }

    @Test func theFlagOrTheVariableAllowsItAndItIsNamedByFingerprint() throws {
        let file = try Self.rootFile()
        for (flag, variables) in [(true, [String: String]()), (false, ["RECEIPTQ_TRUST_TEST_ROOTS": "1"])] {
            let roots = try TrustedRoots.resolve(paths: [file], trustTestRoots: flag, EnvironmentReader(variables))
            #expect(roots.areTestRoots)
            #expect(roots.fingerprints == [AppleRootCertificates.appleRootCAG3SHA256])
            #expect(roots.readinessFacts["trusted_roots"]?.hasPrefix("TEST ROOTS ") == true)
        }
    }

    @Test func withoutPathsItIsApplesPinnedRoots() throws {
        let roots = try TrustedRoots.resolve(paths: [], trustTestRoots: false, EnvironmentReader([:]))
        #expect(!roots.areTestRoots)
        #expect(roots.forSignedData.map(\.sha256Fingerprint) == [AppleRootCertificates.appleRootCAG3SHA256])
        #expect(Set(roots.fingerprints) == [AppleRootCertificates.appleIncRootSHA256, AppleRootCertificates.appleRootCAG3SHA256])
        #expect(roots.readinessFacts["trusted_roots"]?.hasPrefix("apple ") == true)
    }
}
