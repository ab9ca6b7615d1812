import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Postgres
import PostgresTesting
import ReceiptQueueTesting
import Testing

/// What the SIGTERM tests start `receiptq` processes against: a migrated database, the fake App
/// Store as a child process of its own (`receiptq-fake-appstore`, as `./Deploy/dev run` starts
/// it: a Server API key written with --api-key-out, its root with --root-out), and the flags and
/// environment that point a worker or scheduler at it.
struct SigtermFixture {
    static let bundleID = "com.example.app"
    static let keyID = "SIGTERMKEY1"
    static let issuerID = "sigterm-issuer"
    /// A token the API accepts, and its SHA-256 as RECEIPTQ_API_TOKENS holds it
    /// (`printf %s sigterm-test-token | sha256sum`).
    static let token = "sigterm-test-token"
    static let tokenDigest = "8b0f979fc23ba4f1c9d013b0be25402796e7b562120f193e88c2ff4a6fa83aae"

    let database: ScratchDatabase
    /// The owner's connections: set-up and checks.
    let owner: PostgresPool
    /// The fake's key (.p8) and root certificate land here.
    let directory: URL

    static func make() async throws -> SigtermFixture {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("receiptq-sigterm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let database = try await ScratchDatabase.migrated()
        return SigtermFixture(database: database, owner: database.pool(size: 2), directory: directory)
    }

    var keyPath: String { directory.appendingPathComponent("fake-key.p8").path }
    var rootPath: String { directory.appendingPathComponent("fake-root.pem").path }

    /// A running `receiptq-fake-appstore` and the port it bound.
    struct Fake {
        let process: ChildProcess
        let port: Int
        var verifyReceipt: [String] {
            ["--apple-production-url", "http://127.0.0.1:\(port)/production/verifyReceipt",
             "--apple-sandbox-url", "http://127.0.0.1:\(port)/sandbox/verifyReceipt"]
        }
    }

    /// Starts the fake on a free port; returns once it printed its URLs (it listens by then).
    /// - Parameters:
    ///   - latency: before each verifyReceipt answer.
    ///   - apiLatency: before each App Store Server API answer.
    ///   - extra: more flags (e.g. `--notification-url`).
    func startFake(latency: String = "0", apiLatency: String = "0", extra: [String] = []) async throws -> Fake {
        let process = try ChildProcess(ReceiptQBinary.fakeAppStore, arguments: [
            "--port", "0", "--latency", latency, "--api-latency", apiLatency, "--bundle-id", Self.bundleID,
            "--api-key-out", keyPath, "--api-key-id", Self.keyID, "--issuer-id", Self.issuerID, "--root-out", rootPath,
        ] + extra)
        var port: Int?
        _ = await eventually(timeout: .seconds(30)) {
            let printed = process.stdout
            guard printed.contains("admin: "), let line = printed.split(separator: "\n").first(where: { $0.hasPrefix("stats: ") }),
                  let url = URL(string: String(line.dropFirst("stats: ".count))) else { return false }
            port = url.port
            return true
        }
        guard let port else { throw TestSetupError("the fake App Store did not start: \(process.stderr)") }
        return Fake(process: process, port: port)
    }

    /// Flags that give a worker or scheduler the fake's App Store Server API and its key.
    func serverAPIArguments(_ fake: Fake) -> [String] {
        ["--app-store-key-file", keyPath, "--app-store-key-id", Self.keyID, "--app-store-issuer-id", Self.issuerID,
         "--server-api-production-url", "http://127.0.0.1:\(fake.port)/production",
         "--server-api-sandbox-url", "http://127.0.0.1:\(fake.port)/sandbox"]
    }

    /// The environment every worker and scheduler gets: the app, and the fake's root trusted.
    var environment: [String: String] {
        ["RECEIPTQ_BUNDLE_IDS": Self.bundleID, "RECEIPTQ_SIGNED_DATA_ROOT": rootPath, "RECEIPTQ_TRUST_TEST_ROOTS": "1", "RECEIPTQ_APP_APPLE_ID": "1234567890",
         "RECEIPTQ_MIGRATIONS": ScratchDatabase.migrationsDirectory().path]
    }

    /// `receiptq worker` with the default shutdown deadline, verifyReceipt at the fake, an admin port.
    func startWorker(_ fake: Fake, adminPort: Int, extra: [String] = []) async throws -> ChildProcess {
        try ChildProcess(arguments: [
            "worker", "--database-url", try await database.connectionString(as: .worker), "--name", "sigterm-worker",
            "--receipt-check", "off", "--admin-port", "\(adminPort)",
        ] + fake.verifyReceipt + extra, environment: environment)
    }

    /// A receipt the fake answers (after its latency) as valid for `transaction`.
    func mintReceipt(transaction: String) async throws -> String {
        let minted = try await ChildProcess.run(ReceiptQBinary.fakeAppStore, arguments: ["mint", "--transaction", "\(transaction):com.example.coins"])
        guard minted.status == 0 else { throw TestSetupError("mint failed: \(minted.stderr)") }
        return minted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `count` receipt jobs, committed: transactions t1…tN of one minted receipt.
    func enqueueReceipts(_ count: Int) async throws {
        let receipt = try await mintReceipt(transaction: "t1")
        try await owner.query("""
            INSERT INTO receiptq.jobs (receipt_data, transaction_id, user_id) SELECT $1, 't' || g, 'u' FROM generate_series(1, $2) g
            """, [receipt, count])
    }

    func count(_ sql: String) async throws -> Int {
        try await owner.query(sql)[0].decode("count", as: Int.self)
    }

    func tearDown() async {
        owner.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: - Probing and stopping

    /// The status of a GET, nil when nothing answered.
    static func status(_ url: String, token: String? = nil, timeout: TimeInterval = 10) async -> Int? {
        guard let url = URL(string: url) else { return nil }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        guard let (_, response) = try? await URLSession.shared.data(for: request) else { return nil }
        return (response as? HTTPURLResponse)?.statusCode
    }

    /// The body of a GET, nil when nothing answered.
    static func body(_ url: String) async -> String? {
        guard let url = URL(string: url), let (data, _) = try? await URLSession.shared.data(from: url) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// Waits until `GET /readyz` on the admin port answers 200.
    static func ready(adminPort: Int, _ child: ChildProcess) async -> Bool {
        await eventually(timeout: .seconds(30), every: .milliseconds(100)) {
            await status("http://127.0.0.1:\(adminPort)/readyz") == 200
        }
    }

    /// Sends SIGTERM, waits for the exit (SIGKILL after `patience`), prints how long it took so
    /// the figure can be read in the test output, and returns the status and the seconds.
    static func terminate(_ child: ChildProcess, _ label: String, patience: Duration = .seconds(30)) async -> (status: Int32?, seconds: Double) {
        let signalled = ContinuousClock.now
        child.kill(SIGTERM)
        let status = await child.wait(timeout: patience)
        let elapsed = ContinuousClock.now - signalled
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let exit = status.map { "exit status \($0)" } ?? "still running, killed"
        print("SIGTERM to exit | \(label) | \(String(format: "%.2f", seconds)) s | \(exit)")
        return (status, seconds)
    }
}
