import API
import CommandSupport
import Crypto
import Foundation
import HTTPClient
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting

/// The system under attack, as an operator runs it, every part a child process: the fake App
/// Store executable (`FraudFake`) — its App Store Server API behind an App Store Connect key the
/// workers hold, its notifications POSTed to the API — and, from the product binary, each logged
/// in with its own role: the API (local receipt check, two tokens, one trusted for transaction-id
/// claims), a `--receipt-verifier verify-receipt` worker, a `--receipt-verifier server-api` worker
/// (both with Server API credentials and the local check) and the scheduler. The fake's root
/// replaces Apple's in the API and workers only with `--trust-test-roots`, as it must.
struct FraudFleet: Sendable {
    /// The two ways a worker verifies a receipt; each is its own worker process.
    enum Verifier: String, Sendable, Codable, CaseIterable {
        case verifyReceipt = "verify-receipt"
        case serverAPI = "server-api"

        var role: ChaosProcesses.Role { .worker(self == .verifyReceipt ? 0 : 1) }
        var workerName: String { "fraud-\(rawValue)" }
    }

    static let bundleID = "com.example.fraud"
    /// The app's App Store id: the fake signs it into what it sells, the API and workers require it.
    static let appAppleID: Int64 = 1_234_567_890
    static let keyID = "FRAUDKEY01"
    static let issuerID = "fraud-issuer"

    let fake: FraudFake
    let processes: ChaosProcesses
    let apiURL: String
    /// A backend's token; its transaction-id claims prove nothing.
    let token: String
    /// A backend the operator trusts for transaction-id claims (`--trusted-claim-tokens`).
    let trustedToken: String
    let logs: URL

    /// Starts everything and returns once the API answers. `migrationsDirectory` is passed to the
    /// API (its readiness check), as the chaos suite does. `notifications` false: the fake keeps
    /// Apple's notifications for the caller to deliver (the ownership model drops, repeats and
    /// reorders them); `verifiers`: the workers to start.
    static func start(scratch: ScratchDatabase, logs: URL, latency: String, migrationsDirectory: String?,
                      http: HTTPClient, notifications: Bool = true, verifiers: [Verifier] = Verifier.allCases) async throws -> FraudFleet {
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        let key = P256.Signing.PrivateKey()
        let keyFile = logs.appendingPathComponent("fake-key.p8").path
        try? FileManager.default.removeItem(atPath: keyFile)
        guard FileManager.default.createFile(atPath: keyFile, contents: Data(key.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw ConfigurationError("cannot write the App Store Connect key to \(keyFile)")
        }
        let apiPort = try FreePort.pick()
        let fake = try FraudFake.start(logs: logs, latency: latency, keyFile: keyFile,
                                       notificationURL: notifications ? "http://127.0.0.1:\(apiPort)/v1/apple/notifications" : nil)
        do {
            return try await start(fake: fake, scratch: scratch, logs: logs, keyFile: keyFile, apiPort: apiPort,
                                   migrationsDirectory: migrationsDirectory, http: http, verifiers: verifiers)
        } catch {
            await fake.stop()
            throw error
        }
    }

    /// The product's processes, around a running fake.
    private static func start(fake: FraudFake, scratch: ScratchDatabase, logs: URL, keyFile: String, apiPort: Int,
                              migrationsDirectory: String?, http: HTTPClient, verifiers: [Verifier]) async throws -> FraudFleet {
        let token = Self.randomHex(), trustedToken = Self.randomHex()
        var urls: [ProcessRole: String] = [:]
        for role in [ProcessRole.api, .worker, .scheduler] { urls[role] = try await scratch.connectionString(as: role) }
        let arguments = Arguments(urls: urls, fake: fake, apiPort: apiPort, keyFile: keyFile,
                                  trustedDigest: TokenDigests.hexDigest(of: trustedToken), migrationsDirectory: migrationsDirectory)
        let digests = [token, trustedToken].map(TokenDigests.hexDigest(of:)).joined(separator: ",")
        // The operator trusts the second token in the database too (`receiptq trusted-claims add`).
        let owner = scratch.pool(size: 1)
        defer { owner.shutdown() }
        try await owner.withConnection { try TrustedClaimTokens.add(digest: TokenDigests.hexDigest(of: trustedToken), note: "fraud suite", on: $0) }
        let processes = try ChaosProcesses(logDirectory: logs, environment: ["RECEIPTQ_API_TOKENS": digests],
                                           arguments: { arguments.of($0) })
        let fleet = FraudFleet(fake: fake, processes: processes, apiURL: "http://127.0.0.1:\(apiPort)", token: token,
                               trustedToken: trustedToken, logs: logs)
        do {
            try processes.start(.api)
            for verifier in verifiers { try processes.start(verifier.role) }
            try processes.start(.scheduler(0))
            try await fleet.waitForAPI(http)
        } catch {
            await processes.stopAll()
            throw error
        }
        return fleet
    }

    func backend(_ http: HTTPClient, trusted: Bool = false) -> FraudBackend {
        FraudBackend(apiURL: apiURL, token: trusted ? trustedToken : token, http: http)
    }

    /// Whether every child is still running, the fake App Store included.
    var allRunning: Bool { processes.allRunning && fake.isRunning }

    func stop() async {
        await processes.stopAll()
        await fake.stop()
    }

    /// The API validates `{}` without the database: 400 means it is up and answering.
    private func waitForAPI(_ http: HTTPClient) async throws {
        let headers = ["Authorization": "Bearer \(token)", "Content-Type": "application/json"]
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if (try? await http.post(url: apiURL + "/v1/receipts", headers: headers, body: Array("{}".utf8), timeout: .seconds(5)))?.status == 400 {
                return
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw ConfigurationError("the API did not answer within 30 s (see \(logs.path)/api.log)")
    }

    private static func randomHex() -> String {
        (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    /// Each child's command line.
    private struct Arguments: Sendable {
        let urls: [ProcessRole: String]
        let fake: FraudFake
        let apiPort: Int
        let keyFile: String
        let trustedDigest: String
        let migrationsDirectory: String?

        /// The app, and the fake's root in place of Apple's: explicit, as the product requires.
        var signedData: [String] {
            ["--bundle-ids", FraudFleet.bundleID, "--app-apple-id", "\(FraudFleet.appAppleID)",
             "--signed-data-root", fake.rootPath, "--trust-test-roots"]
        }

        func of(_ role: ChaosProcesses.Role) -> [String] {
            switch role {
            case .api:
                return ["api", "--database-url", urls[.api] ?? "", "--port", "\(apiPort)", "--admin-port", "0",
                        "--receipt-check", "local"] + signedData
                    + ["--trusted-claim-tokens", trustedDigest] + (migrationsDirectory.map { ["--migrations", $0] } ?? [])
            case .worker(let index):
                let verifier: Verifier = index == 0 ? .verifyReceipt : .serverAPI
                return ["worker", "--database-url", urls[.worker] ?? "", "--name", verifier.workerName,
                        "--receipt-verifier", verifier.rawValue, "--receipt-check", "local"] + signedData
                    + ["--apple-production-url", fake.productionURL, "--apple-sandbox-url", fake.sandboxURL,
                       "--app-store-key-file", keyFile, "--app-store-key-id", FraudFleet.keyID, "--app-store-issuer-id", FraudFleet.issuerID,
                       "--server-api-production-url", fake.serverAPIProductionURL, "--server-api-sandbox-url", fake.serverAPISandboxURL,
                       "--concurrency", "200", "--poll-interval", "200ms", "--shutdown-deadline", "5s"]
            case .scheduler:
                return ["scheduler", "--database-url", urls[.scheduler] ?? "", "--interval", "1s"]
            }
        }
    }
}
