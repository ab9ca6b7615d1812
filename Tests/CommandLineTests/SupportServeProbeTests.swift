import Crypto
import Foundation
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// `receiptq support serve` can be deployed like the other processes: with `--admin-port` it
/// serves `/healthz`, `/readyz` and `/metrics` on a port of their own, ready once the console
/// listens and the read-only login (every page's reads) answers — and not ready while it does not.
@Suite("Support serve: probes a deployment can use", .timeLimit(.minutes(2)))
struct SupportServeProbeTests {
    @Test func readyOnceTheConsoleListensAndItsReadOnlyLoginAnswers() async throws {
        let database = try await ScratchDatabase.migrated()
        let credentials = FileManager.default.temporaryDirectory.appendingPathComponent("operators-\(UUID().uuidString)")
        let digest = SHA256.hash(data: Data("operator-token".utf8)).map { String(format: "%02x", $0) }.joined()
        try "ops admin \(digest)\n".write(to: credentials, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: credentials) }

        func serve(readonlyURL: String) async throws -> (ChildProcess, admin: Int, console: Int) {
            let (admin, console) = (try FreePort.pick(), try FreePort.pick())
            let child = try ChildProcess(arguments: [
                "support", "serve", "--database-url", try await database.connectionString(as: .support),
                "--readonly-database-url", readonlyURL, "--support-credentials-file", credentials.path,
                "--support-port", "\(console)", "--admin-port", "\(admin)",
            ])
            return (child, admin, console)
        }

        let (ready, admin, console) = try await serve(readonlyURL: try await database.connectionString(as: .readonly))
        defer { ready.kill() }
        let answered = await eventually(timeout: .seconds(30), every: .milliseconds(100)) {
            await OperationsCommandTests.get("http://127.0.0.1:\(admin)/readyz") == 200
        }
        #expect(answered, "ready: \(ready.stderr.suffix(2000))")
        #expect(await OperationsCommandTests.get("http://127.0.0.1:\(console)/healthz") == 200, "the console's own port still answers /healthz")
        let metrics = await OperationsCommandTests.body("http://127.0.0.1:\(admin)/metrics") ?? ""
        #expect(metrics.contains("receiptq_db_pool_connections"), "the pools are measured like every process's")
        #expect(await OperationsCommandTests.get("http://127.0.0.1:\(console)/metrics") != 200, "never on the console's port")

        // A read-only login that cannot log in: alive, not ready (a load balancer sends no operator there).
        var components = try #require(URLComponents(string: try await database.connectionString(as: .readonly)))
        components.user = "rq_no_such_login_\(UInt32.random(in: 0...UInt32.max))"
        components.password = "wrong"
        let broken = try #require(components.string)
        let (notReady, brokenAdmin, _) = try await serve(readonlyURL: broken)
        defer { notReady.kill() }
        let alive = await eventually(timeout: .seconds(30), every: .milliseconds(100)) {
            await OperationsCommandTests.get("http://127.0.0.1:\(brokenAdmin)/healthz") == 200
        }
        #expect(alive, "alive: \(notReady.stderr.suffix(2000))")
        #expect(await OperationsCommandTests.get("http://127.0.0.1:\(brokenAdmin)/readyz") == 503)
    }
}
