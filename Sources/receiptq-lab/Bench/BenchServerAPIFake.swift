import FakeAppStore
import Foundation
import HTTPClient
import ReceiptQueueTesting

/// The fake App Store as `bench appstore-api` runs it: a `receiptq-fake-appstore` child with the
/// Server API on, accepting the bench's key, Get Transaction Info limited to `rate` per second.
final class BenchServerAPIFake {
    static let bundleId = "com.example.bench"

    let productionURL: String
    let adminURL: String
    let statsURL: String
    private let process: SpawnedProcess

    private init(productionURL: String, adminURL: String, statsURL: String, process: SpawnedProcess) {
        self.productionURL = productionURL
        self.adminURL = adminURL
        self.statsURL = statsURL
        self.process = process
    }

    static func start(keyFile: String, rate: Double) throws -> BenchServerAPIFake {
        let output = Pipe()
        let process = try SpawnedProcess(
            executable: ReceiptQBinary.fakeAppStore.path,
            arguments: ["--port", "0", "--latency", "0", "--bundle-id", bundleId, "--api-key", keyFile,
                        "--api-rate-limit", "get_transaction_info=\(rate)"],
            stdout: .descriptor(output.fileHandleForWriting.fileDescriptor), stderr: .null)
        try output.fileHandleForWriting.close()
        var text = ""
        while !text.contains("admin: ") || !text.hasSuffix("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        func value(_ name: String) -> String? {
            text.split(separator: "\n").first { $0.hasPrefix(name + ": ") }.map { String($0.dropFirst(name.count + 2)) }
        }
        guard let production = value("server-api production"), let admin = value("admin"), let stats = value("stats") else {
            process.terminate()
            throw BenchError("the fake App Store child did not print its URLs")
        }
        return BenchServerAPIFake(productionURL: production, adminURL: admin, statsURL: stats, process: process)
    }

    /// Buys one consumable through the admin API; returns its transaction id.
    func buy(http: HTTPClient) async throws -> String {
        let response = try await http.post(url: adminURL + "/purchases", headers: ["Content-Type": "application/json"],
                                           body: Array(#"{"productId":"com.example.bench.coins","notify":false}"#.utf8))
        guard response.status == 201, let purchase = try? JSONDecoder().decode(FakePurchase.self, from: Data(response.body)) else {
            throw BenchError("the fake refused the purchase: HTTP \(response.status)")
        }
        return purchase.transactionId
    }

    /// What the fake itself answered on Get Transaction Info.
    func counts(http: HTTPClient) async throws -> (ok: Int, rateLimited: Int) {
        let response = try await http.send(.get, url: statsURL)
        let snapshot = try JSONDecoder().decode(FakeAppStoreStats.Snapshot.self, from: Data(response.body))
        return (snapshot.outcomes["api.get_transaction_info.200"] ?? 0, snapshot.outcomes["api.get_transaction_info.429"] ?? 0)
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        _ = process.waitUntilExit()
    }
}
