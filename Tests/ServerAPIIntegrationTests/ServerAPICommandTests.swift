import Crypto
import FakeAppStore
import Foundation
import ReceiptQueueTesting
import Testing

/// `receiptq server-api lookup` configured as an operator would, against the fake.
@Suite("receiptq server-api: configured from flags and the environment")
struct ServerAPICommandTests {
    static func files(_ fixture: ServerAPIFixture) throws -> (key: String, root: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiptq-server-api-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let key = folder.appendingPathComponent("AuthKey_KEY1.p8").path
        let root = folder.appendingPathComponent("fake-root.pem").path
        try Data(fixture.key.pemRepresentation.utf8).write(to: URL(fileURLWithPath: key))
        try Data(fixture.fake.serverAPI.rootCertificatePEM.utf8).write(to: URL(fileURLWithPath: root))
        return (key, root)
    }

    static func environment(_ fixture: ServerAPIFixture, key: String) -> [String: String] {
        ["RECEIPTQ_APP_STORE_KEY_FILE": key, "RECEIPTQ_APP_STORE_KEY_ID": "KEY1", "RECEIPTQ_APP_STORE_ISSUER_ID": "issuer-1",
         "RECEIPTQ_BUNDLE_IDS": ServerAPIFixture.bundleId, "RECEIPTQ_SERVER_API_PRODUCTION_URL": fixture.fake.serverAPIProductionURL,
         "RECEIPTQ_SERVER_API_SANDBOX_URL": fixture.fake.serverAPISandboxURL]
    }

    @Test func aLookupFindsASandboxTransactionAndPrintsItVerified() async throws {
        try await withServerAPIFixture { fixture in
            let purchase = try fixture.buy(environment: "Sandbox")
            let (key, root) = try Self.files(fixture)
            let run = try await ChildProcess.run(arguments: ["server-api", "lookup", purchase.transactionId, "--signed-data-root", root, "--trust-test-roots"],
                                                 environment: Self.environment(fixture, key: key))
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("\"transactionId\" : \"\(purchase.transactionId)\""))
            #expect(run.stdout.contains("\"environment\" : \"Sandbox\""))
            #expect(!run.stdout.contains("eyJ"))   // decoded fields, never the signed text
            #expect(!run.stderr.contains("PRIVATE KEY"))
        }
    }

    @Test func withApplesRootOnlyTheFakesSignatureIsRefused() async throws {
        try await withServerAPIFixture { fixture in
            let purchase = try fixture.buy()
            let (key, _) = try Self.files(fixture)
            let run = try await ChildProcess.run(arguments: ["server-api", "lookup", purchase.transactionId],
                                                 environment: Self.environment(fixture, key: key))
            #expect(run.status != 0)
            #expect(run.stderr.contains("certificate chain not trusted"), "\(run.stderr)")
        }
    }

    @Test func aMissingTransactionIsOneClearLine() async throws {
        try await withServerAPIFixture { fixture in
            let (key, root) = try Self.files(fixture)
            let run = try await ChildProcess.run(arguments: ["server-api", "lookup", "404404", "--signed-data-root", root, "--trust-test-roots"],
                                                 environment: Self.environment(fixture, key: key))
            #expect(run.status != 0)
            #expect(run.stderr.contains("not found in production or the sandbox"), "\(run.stderr)")
        }
    }

    @Test func plainHTTPToAnotherHostIsRefusedBeforeAnyCall() async throws {
        try await withServerAPIFixture { fixture in
            let (key, _) = try Self.files(fixture)
            var environment = Self.environment(fixture, key: key)
            environment["RECEIPTQ_SERVER_API_PRODUCTION_URL"] = "http://example.com"
            let run = try await ChildProcess.run(arguments: ["server-api", "lookup", "1"], environment: environment)
            #expect(run.status != 0)
            #expect(run.stderr.contains("is not HTTPS"), "\(run.stderr)")
        }
    }
}
