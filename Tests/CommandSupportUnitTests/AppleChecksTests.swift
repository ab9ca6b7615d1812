import AppleSignedData
import CommandSupport
import Testing

/// Apple's library requires the app's Apple id for production and offers online revocation
/// checks; the processes that accept Apple-signed data do at least as much.
@Suite("Apple's checks at least: the app's Apple id with Apple's root, online revocation on demand")
struct AppleChecksTests {
    @Test func applesRootWithoutTheAppsAppleIdIsRefusedNamingTheFlag() throws {
        let apple = try TrustedRoots.resolve(paths: [], trustTestRoots: false, EnvironmentReader([:]))
        let error = #expect(throws: ConfigurationError.self) { try AppleChecks.requireAppAppleId(nil, roots: apple) }
        #expect(error.map { "\($0)".contains("--app-apple-id") && "\($0)".contains("RECEIPTQ_APP_APPLE_ID") } == true)
        try AppleChecks.requireAppAppleId(1_234_567_890, roots: apple)
        // Only another root (the fake App Store's test CA): Apple's production data can never pass.
        let test = try TrustedRoots.resolve(paths: [try TrustedRootsTests.rootFile()], trustTestRoots: true, EnvironmentReader([:]))
        try AppleChecks.requireAppAppleId(nil, roots: test)
    }

    @Test func onlineRevocationChecksAreOffUnlessTheFlagOrTheVariableTurnsThemOn() throws {
        #expect(try AppleChecks.onlineRevocationChecks(false, EnvironmentReader([:])) == false)
        #expect(try AppleChecks.onlineRevocationChecks(true, EnvironmentReader([:])))
        #expect(try AppleChecks.onlineRevocationChecks(false, EnvironmentReader(["RECEIPTQ_ONLINE_REVOCATION_CHECKS": "1"])))
        #expect(throws: ConfigurationError.self) {
            try AppleChecks.onlineRevocationChecks(false, EnvironmentReader(["RECEIPTQ_ONLINE_REVOCATION_CHECKS": "sometimes"]))
        }
    }

    @Test func theWorkersVerifierChecksOnlineOnlyWhenAskedToAndRefusesApplesRootWithoutTheAppsId() throws {
        let requester = OCSPQueryRequester { _, _ in [] }
        let online = try ServerAPIOptions.parse(["--app-apple-id", "1", "--online-revocation-checks"])
            .transactionVerifier(bundleIds: ["a"], EnvironmentReader([:]), ocsp: requester)
        #expect(Self.checksOnline(online.production) && online.sandbox.map(Self.checksOnline) == true)
        let offline = try ServerAPIOptions.parse(["--app-apple-id", "1"]).transactionVerifier(bundleIds: ["a"], EnvironmentReader([:]), ocsp: requester)
        #expect(!Self.checksOnline(offline.production))
        #expect(throws: ConfigurationError.self) {
            try ServerAPIOptions.parse([]).transactionVerifier(bundleIds: ["a"], EnvironmentReader([:]), ocsp: requester)
        }
    }

    private static func checksOnline(_ verifier: SignedDataVerifier) -> Bool {
        if case .ocsp = verifier.configuration.revocationChecking { true } else { false }
    }
}
