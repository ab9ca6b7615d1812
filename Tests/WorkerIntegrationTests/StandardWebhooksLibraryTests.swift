import FakeAppStore
import Foundation
import Postgres
import ReceiptQueue
import ReceiptQueueTesting
import Testing
import WebhookSignature
import Worker

/// Real deliveries, checked by the Standard Webhooks project's own Python library (from PyPI) as
/// a backend would check them: with a new `whsec_` secret and, during its rotation, the old secret
/// stored before Standard Webhooks (not base64, so a raw key). `./Deploy/dev test` installs the
/// library into a virtualenv and names its python in RECEIPTQ_STANDARDWEBHOOKS_PYTHON; without it
/// the test is skipped (and Deploy/dev says so loudly).
@Suite("Webhooks: verified by the Standard Webhooks library", .timeLimit(.minutes(3)))
struct StandardWebhooksLibraryTests {
    static let python = ProcessInfo.processInfo.environment["RECEIPTQ_STANDARDWEBHOOKS_PYTHON"]
    static var script: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Deploy/conformance/standard_webhooks_receiver.py")
    }

    @Test(.enabled(if: python.map { FileManager.default.isExecutableFile(atPath: $0) } ?? false,
                   "RECEIPTQ_STANDARDWEBHOOKS_PYTHON is not set: ./Deploy/dev test installs the standardwebhooks package from PyPI"))
    func everyDeliveryVerifiesWithTheLibraryUnderBothSecretsOfARotation() async throws {
        let new = WebhookSecret.generate(), old = "whsec_legacy_0123456789abcdef"   // old: '_' is not base64
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("standard-webhooks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let secretsFile = directory.appendingPathComponent("secrets.json")
        try JSONSerialization.data(withJSONObject: [["name": "new", "secret": new, "raw": false], ["name": "old", "secret": old, "raw": true]])
            .write(to: secretsFile)
        let log = directory.appendingPathComponent("deliveries.jsonl")
        let receiver = try ChildProcess(URL(fileURLWithPath: try #require(Self.python)), arguments: [Self.script.path, secretsFile.path, log.path])
        defer { receiver.kill() }
        var port: Int?
        _ = await eventually(timeout: .seconds(20)) {
            port = receiver.stdout.split(separator: "\n").first.flatMap { Int($0) }
            return port != nil
        }
        let url = "http://127.0.0.1:\(try #require(port, "the receiver did not start: \(receiver.stderr)"))/hooks"

        let e2e = try await EndToEnd.make(fake: WebhookTests.fast)
        try await e2e.pool.withConnection { try UpsertWebhookEndpoint.run(WebhookEndpoint(id: "backend", url: url, secrets: [new, old]), on: $0) }
        let worker = e2e.startWorker(e2e.workerConfiguration(name: "w"))
        let deliverer = e2e.startDeliverer()
        _ = try await e2e.queue.enqueue([
            NewJob(receiptData: EndToEnd.receipt([("sw1", "coins")]), transactionID: "sw1", userID: "ann"),
            NewJob(receiptData: EndToEnd.receipt([("sw2", "coins")], forcedStatus: 21003), transactionID: "sw2", userID: "bob"),
            NewJob(receiptData: EndToEnd.receipt([("other", "coins")]), transactionID: "sw3", userID: "cy"),
        ])
        #expect(try await e2e.waitUntilDrained(timeout: .seconds(30)))
        func deliveries() -> [[String: Any]] {
            let lines = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            return lines.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
        #expect(await eventually(timeout: .seconds(30)) {
            (try? await e2e.count("SELECT count(*) FROM receiptq.deliveries WHERE state = 'delivered'")) == 3
        }, "the library refused: \(deliveries())")
        let events = try await e2e.pool.query("SELECT id::text AS id FROM receiptq.events").map { try $0.decode("id", as: String.self) }
        #expect(Set(deliveries().compactMap { $0["webhook_id"] as? String }) == Set(events))
        for delivery in deliveries() {
            #expect(delivery["verified"] as? [String] == ["new", "old"], "\(delivery)")
            #expect(delivery["webhook_id"] as? String == delivery["event_id"] as? String)
            #expect((delivery["type"] as? String)?.hasPrefix("verdict.") == true)
        }
        try await deliverer.stop()
        try await worker.stop()
        await e2e.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }
}
