import AppleSignedData
import Foundation
import PostgresTesting
import ReceiptQueueTesting
import Testing

/// Trusting a root other than Apple's is explicit and loud, in the real binary: refused without
/// `--trust-test-roots`; with it, the roots' fingerprints in the start-up log (a warning), in
/// `/readyz` and in `receiptq_process_trusted_root_info`.
@Suite("Test roots: refused unless asked for by name, then shown wherever an operator looks")
struct TestRootsTests {
    static func rootFile() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("receiptq-root-\(UUID().uuidString).pem").path
        try AppleRootCertificates.appleRootCAG3PEM.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aRootOtherThanApplesWithoutTheFlagIsAConfigurationErrorNamingIt() async throws {
        let root = try Self.rootFile()
        for command in [["api", "--bundle-ids", "com.example.app"], ["worker", "--bundle-ids", "com.example.app"]] {
            let run = try await ChildProcess.run(arguments: command + ["--signed-data-root", root, "--database-url", "postgresql://u:p@127.0.0.1:1/db"],
                                                 environment: ["RECEIPTQ_API_TOKENS": String(repeating: "a", count: 64)], timeout: .seconds(20))
            #expect(run.status == 78, "\(command[0]): \(run.stderr)")
            #expect(run.stderr.contains("--trust-test-roots"), "\(command[0]): \(run.stderr)")
        }
    }

    @Test func withTheFlagTheRootsFingerprintsAreLoggedShownInReadinessAndExported() async throws {
        let root = try Self.rootFile()
        let database = try await ScratchDatabase.migrated()
        let (port, admin) = (try FreePort.pick(), try FreePort.pick())
        let api = try ChildProcess(arguments: [
            "api", "--port", "\(port)", "--admin-port", "\(admin)", "--receipt-check", "off", "--bundle-ids", "com.example.app",
            "--signed-data-root", root, "--trust-test-roots", "--database-url", try await database.connectionString(as: .api),
        ], environment: ["RECEIPTQ_API_TOKENS": String(repeating: "a", count: 64),
                         "RECEIPTQ_MIGRATIONS": ScratchDatabase.migrationsDirectory().path])
        defer { api.kill() }
        let fingerprint = AppleRootCertificates.appleRootCAG3SHA256
        var readiness = "", metrics = ""
        #expect(await eventually(timeout: .seconds(30), every: .milliseconds(200)) {
            readiness = (try? String(contentsOf: URL(string: "http://127.0.0.1:\(admin)/readyz")!, encoding: .utf8)) ?? ""
            return readiness.contains("ready")
        }, "api said: \(api.stderr)")
        #expect(readiness.contains("TEST ROOTS") && readiness.contains(fingerprint), "\(readiness)")
        metrics = (try? String(contentsOf: URL(string: "http://127.0.0.1:\(admin)/metrics")!, encoding: .utf8)) ?? ""
        #expect(metrics.contains("receiptq_process_trusted_root_info{sha256=\"\(fingerprint)\",apple=\"false\"} 1")
                    || metrics.contains("receiptq_process_trusted_root_info{apple=\"false\",sha256=\"\(fingerprint)\"} 1"), "\(metrics.prefix(2000))")
        #expect(api.stderr.contains("TRUSTING TEST ROOTS") && api.stderr.contains(fingerprint), "\(api.stderr)")
        await database.drop()
    }
}
