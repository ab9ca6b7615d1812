import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting
import WebhookReceiver

/// The product as operators run it, for the observability tests: the fake App Store (its Server
/// API sends notifications to the API), `receiptq api`, one `receiptq worker` (verifyReceipt, the
/// Server API, notifications, consumption answers, webhooks; logging JSON at debug) and
/// `receiptq scheduler`, each a process with its admin port, and a webhook receiver in this process.
struct ObservedStack {
    static let webhookSecret = "whsec_" + Data("observability-test-secret-32byte".utf8).base64EncodedString()

    let fixture: SigtermFixture
    let fake: SigtermFixture.Fake
    let api: ChildProcess
    let worker: ChildProcess
    let scheduler: ChildProcess
    let receiver: WebhookReceiver
    let apiPort: Int
    /// Admin ports by process: api, worker, scheduler.
    let admin: [String: Int]

    /// - Parameter otlpEndpoint: the api's and the worker's `--otlp-endpoint` (tracing on); nil: off.
    static func start(otlpEndpoint: String? = nil) async throws -> ObservedStack {
        let tracing = otlpEndpoint.map { ["--otlp-endpoint", $0] } ?? []
        let fixture = try await SigtermFixture.make()
        let apiPort = try FreePort.pick()
        let fake = try await fixture.startFake(extra: ["--notification-url", "http://127.0.0.1:\(apiPort)/v1/apple/notifications"])
        let admin = ["api": try FreePort.pick(), "worker": try FreePort.pick(), "scheduler": try FreePort.pick()]
        let receiver = try await WebhookReceiver.start(secrets: [webhookSecret])
        try await fixture.owner.withConnection {
            try UpsertWebhookEndpoint.run(WebhookEndpoint(id: "backend", url: receiver.url, secrets: [webhookSecret]), on: $0)
        }
        let api = try ChildProcess(arguments: [
            "api", "--port", "\(apiPort)", "--admin-port", "\(admin["api"]!)", "--receipt-check", "off",
            "--database-url", try await fixture.database.connectionString(as: .api),
        ] + tracing, environment: fixture.environment.merging(["RECEIPTQ_API_TOKENS": SigtermFixture.tokenDigest, "RECEIPTQ_LOG_FORMAT": "json"]) { $1 })
        let worker = try ChildProcess(arguments: [
            "worker", "--database-url", try await fixture.database.connectionString(as: .worker), "--name", "observed-worker",
            "--receipt-check", "off", "--admin-port", "\(admin["worker"]!)", "--receipt-verifier", "verify-receipt",
        ] + fake.verifyReceipt + fixture.serverAPIArguments(fake) + tracing,
            environment: fixture.environment.merging(["RECEIPTQ_LOG_LEVEL": "debug", "RECEIPTQ_LOG_FORMAT": "json"]) { $1 })
        let scheduler = try ChildProcess(arguments: [
            "scheduler", "--database-url", try await fixture.database.connectionString(as: .scheduler), "--admin-port", "\(admin["scheduler"]!)",
        ] + fixture.serverAPIArguments(fake), environment: fixture.environment)
        let stack = ObservedStack(fixture: fixture, fake: fake, api: api, worker: worker, scheduler: scheduler, receiver: receiver,
                                  apiPort: apiPort, admin: admin)
        for (name, process) in [("api", api), ("worker", worker), ("scheduler", scheduler)] {
            guard await SigtermFixture.ready(adminPort: admin[name]!, process) else {
                await stack.stop()
                throw TestSetupError("\(name) did not start: \(process.stderr.suffix(2000))")
            }
        }
        return stack
    }

    func stop() async {
        for process in [api, worker, scheduler, fake.process] { process.kill() }
        await receiver.stop()
        await fixture.tearDown()
    }

    // MARK: - Talking to it

    struct Answer {
        var status: Int
        var headers: [String: String]
        var json: [String: Any]
    }

    /// A request to the API with the test's token; `headers` added as given.
    func api(_ method: String, _ path: String, _ body: [String: Any]? = nil, headers: [String: String] = [:],
             token: String? = SigtermFixture.token) async throws -> Answer {
        try await Self.request(method, "http://127.0.0.1:\(apiPort)\(path)", body, headers: headers, token: token)
    }

    /// The fake's admin API (`/fake/admin/...`).
    func fakeAdmin(_ path: String, _ body: [String: Any]) async throws -> Answer {
        try await Self.request("POST", "http://127.0.0.1:\(fake.port)/fake/admin/\(path)", body, headers: [:], token: nil)
    }

    func metrics(_ process: String) async -> String {
        await SigtermFixture.body("http://127.0.0.1:\(admin[process]!)/metrics") ?? ""
    }

    static func request(_ method: String, _ url: String, _ body: [String: Any]?, headers: [String: String], token: String?) async throws -> Answer {
        var request = URLRequest(url: URL(string: url)!, timeoutInterval: 30)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields[String(describing: name).lowercased()] = String(describing: value) }
        return Answer(status: http.statusCode, headers: fields,
                      json: (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:])
    }
}
