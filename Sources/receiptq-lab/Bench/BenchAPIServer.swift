import API
import AppleSignedData
import APITesting
import ArgumentParser
import CommandSupport
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting
import X509

/// The API that `bench api` measures, in one of two places:
/// - `in-process`: an `APIServer` in the bench's own process. The load generator then shares the
///   server's two cooperative threads, its NIO event loops and its allocator, so every request's
///   client work delays server work in the same scheduler.
/// - `child`: a `receiptq api` child process, as a client and a server on one host would run. Both
///   still share the machine's cores (and PostgreSQL's), but not a process.
final class BenchAPIServer {
    enum Placement: String, ExpressibleByArgument, Codable, CaseIterable {
        case inProcess = "in-process"
        case child
    }

    /// `http://127.0.0.1:<port>`.
    let baseURL: String
    /// The admin listener: /metrics, /readyz.
    let adminURL: String
    private let api: InProcessAPI?
    private let child: SpawnedProcess?

    private init(baseURL: String, adminURL: String, api: InProcessAPI?, child: SpawnedProcess?) {
        self.baseURL = baseURL
        self.adminURL = adminURL
        self.api = api
        self.child = child
    }

    /// What the API needs to take Apple's notifications: the root they chain to (a PEM file, for
    /// the child's `--signed-data-root`) and the app's bundle id.
    struct SignedData {
        var rootPEMPath: String
        var bundleId: String
    }

    static func start(_ placement: Placement, scratch: ScratchDatabase, migrations files: [ReceiptQueue.Migration],
                      token: String, groupCommit: Bool, poolSize: Int, signedData: SignedData? = nil) async throws -> BenchAPIServer {
        switch placement {
        case .inProcess:
            var settings = APIConfiguration(port: 0, tokens: try TokenDigests(hexList: TokenDigests.hexDigest(of: token)),
                                            rateLimitPerSecond: 0, poolSize: poolSize)
            settings.groupCommit.enabled = groupCommit
            if let signedData {
                let root = try Certificate(pemEncoded: String(contentsOfFile: signedData.rootPEMPath, encoding: .utf8))
                settings.signedTransactions = try SignedTransactionVerifier(trustedRoots: [root], bundleIds: [signedData.bundleId])
            }
            let api = try await InProcessAPI.start(configuration: settings, database: try await scratch.configuration(as: .api),
                                                   migrations: files, logger: Logger(label: "receiptq.benchapi"))
            return BenchAPIServer(baseURL: api.baseURL, adminURL: api.adminURL, api: api, child: nil)
        case .child:
            let (port, admin) = (try FreePort.pick(), try FreePort.pick())
            let arguments = ["api", "--database-url", try await scratch.connectionString(as: .api), "--port", "\(port)",
                             "--admin-port", "\(admin)", "--rate-limit", "0", "--pool-size", "\(poolSize)",
                             "--receipt-check", "off"]   // the fake's JSON receipts; `bench receipts` measures the check
                + (groupCommit ? [] : ["--no-group-commit"])
                + (signedData.map { ["--bundle-ids", $0.bundleId, "--signed-data-root", $0.rootPEMPath, "--trust-test-roots"] } ?? [])
            var environment = ProcessInfo.processInfo.environment
            environment["RECEIPTQ_API_TOKENS"] = TokenDigests.hexDigest(of: token)
            environment["RECEIPTQ_LOG_LEVEL"] = "warning"
            let process = try SpawnedProcess(executable: ReceiptQBinary.url.path, arguments: arguments, environment: environment)
            let server = BenchAPIServer(baseURL: "http://127.0.0.1:\(port)", adminURL: "http://127.0.0.1:\(admin)", api: nil, child: process)
            try await server.waitUntilReady()
            return server
        }
    }

    /// CPU seconds the child has used so far; nil in process (the bench's own usage covers it).
    var childCPUSeconds: Double? {
        child.map { ProcessUsage.read(pid: $0.pid).cpuSeconds }
    }

    /// GET /metrics (Prometheus text).
    func metricsText() async -> String {
        if let api { return api.metricsText() }
        guard let url = URL(string: adminURL + "/metrics"), let (data, _) = try? await URLSession.shared.data(from: url) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    func stop() async throws {
        await api?.stop()
        if let child, child.isRunning {
            child.terminate()
            child.waitUntilExit()
        }
    }

    /// Polls GET /readyz until 200 (the child connected to the database), for up to 30 s.
    private func waitUntilReady() async throws {
        guard let url = URL(string: adminURL + "/readyz") else { throw BenchError("bad URL \(adminURL)") }
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            guard child?.isRunning != false else { throw BenchError("the API child process exited") }
            if let (_, response) = try? await URLSession.shared.data(from: url), (response as? HTTPURLResponse)?.statusCode == 200 {
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        try? await stop()
        throw BenchError("the API child process was not ready within 30 s")
    }
}
