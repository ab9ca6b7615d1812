import CommandSupport
import Foundation
import HTTPClient
import ReceiptQueue

/// The load of `receiptq-lab bench api`: `connections` clients, each posting a new receipt as soon
/// as its previous one was answered, for a fixed time. A request counts when it is answered
/// with `expectedStatus` (202 for receipts; the HTTP-only comparison posts the same bodies to a
/// route that answers 405 without reading them into JSON or touching the database).
struct BenchAPILoad {
    struct Figures: Codable, APILoadFigures {
        var accepted: Int
        var failed: Int
        var acceptedPerSecond: Double
        var p50Milliseconds: Double
        var p99Milliseconds: Double
        /// Receipts per commit the server reported (`receiptq_api_enqueue_jobs_total / …commits_total`).
        var meanBatch: Double
        /// CPU milliseconds per accepted request (`APILoadFigures`).
        var benchProcessCPUMilliseconds: Double = 0
        var apiChildCPUMilliseconds: Double = 0
        var postgresCPUMilliseconds: Double = 0
        var machineCPUMilliseconds: Double = 0
    }

    let url: String
    let token: String
    let connections: Int
    let receiptBytes: Int
    let seed: String
    var expectedStatus = 202

    func run(for duration: Duration) async throws -> Figures {
        let client = HTTPClient(configuration: HTTPClientConfiguration(maxTotalConnections: connections, maxIdleConnections: connections))
        // One random base64 receipt; each request overwrites its first characters with a counter.
        var random = [UInt8](repeating: 0, count: receiptBytes * 3 / 4 + 3)
        for index in random.indices { random[index] = UInt8.random(in: 0...255) }
        let template = Array(Data(random).base64EncodedString().utf8.prefix(receiptBytes / 4 * 4))
        let headers = ["Authorization": "Bearer \(token)", "Content-Type": "application/json"]
        let start = ContinuousClock.now
        let end = start + duration
        let perClient = try await withThrowingTaskGroup(of: (latencies: [Double], failed: Int).self) { group in
            for client_ in 0..<connections {
                group.addTask {
                    var latencies: [Double] = []
                    var failed = 0
                    var sequence = 0
                    while ContinuousClock.now < end {
                        sequence += 1
                        let body = makeBody(template: template, client: client_, sequence: sequence)
                        let sent = ContinuousClock.now
                        do {
                            let response = try await client.post(url: url, headers: headers, body: body, timeout: .seconds(30))
                            if response.status == expectedStatus { latencies.append((ContinuousClock.now - sent).seconds * 1000) } else { failed += 1 }
                        } catch {
                            failed += 1
                        }
                    }
                    return (latencies, failed)
                }
            }
            return try await group.reduce(into: [(latencies: [Double], failed: Int)]()) { $0.append($1) }
        }
        let elapsed = (ContinuousClock.now - start).seconds
        await client.shutdown()
        let latencies = perClient.flatMap(\.latencies).sorted()
        func percentile(_ p: Double) -> Double {
            latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]
        }
        return Figures(accepted: latencies.count, failed: perClient.reduce(0) { $0 + $1.failed },
                       acceptedPerSecond: Double(latencies.count) / elapsed,
                       p50Milliseconds: percentile(0.50), p99Milliseconds: percentile(0.99), meanBatch: 0)
    }

    /// A JSON body with a unique receipt and transaction id (digits are base64 too).
    func makeBody(template: [UInt8], client: Int, sequence: Int) -> [UInt8] {
        var receipt = template
        let tag = Array(String(format: "%@%05d%08d", seed, client, sequence).utf8)
        for (index, byte) in tag.prefix(receipt.count).enumerated() { receipt[index] = byte }
        var body = Array(#"{"receipt_data":""#.utf8)
        body += receipt
        body += Array(#"","transaction_id":"\#(seed)-\#(client)-\#(sequence)","user_id":"bench-user-\#(client % 97)","product_id":"com.example.gems"}"#.utf8)
        return body
    }

    static func meanBatch(_ metrics: String) -> Double {
        func value(_ name: String) -> Double? {
            metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
        }
        guard let jobs = value("receiptq_api_enqueue_jobs_total"), let commits = value("receiptq_api_enqueue_commits_total"), commits > 0 else { return 0 }
        return jobs / commits
    }
}
