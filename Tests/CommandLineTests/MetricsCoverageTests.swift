import Foundation
import Postgres
import ReceiptQueueTesting
import Testing

/// docs/metrics.md is the list of metrics: each process, scraped after a small load of every
/// kind, exports only metrics the table names, and every row the table marks as exercised by the
/// load has a non-zero sample on each process it names.
@Suite("Metrics: every documented metric, on every process, seen under load", .timeLimit(.minutes(4)))
struct MetricsCoverageTests {
    /// One row of the table in docs/metrics.md.
    struct Documented: Equatable {
        var name: String
        var type: String
        var processes: [String]
        var exercised: Bool
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func documented() throws -> [Documented] {
        let text = try String(contentsOf: repository.appendingPathComponent("docs/metrics.md"), encoding: .utf8)
        return text.split(separator: "\n").compactMap { line -> Documented? in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 8, cells[1].hasPrefix("`"), cells[1].hasSuffix("`") else { return nil }
            return Documented(name: String(cells[1].dropFirst().dropLast()), type: cells[2],
                              processes: cells[3].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) },
                              exercised: cells[6] == "yes")
        }
    }

    /// Sample values by metric name (labels dropped, values summed), from Prometheus text.
    static func samples(_ text: String) -> [String: Double] {
        var sums: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let value = line.split(separator: " ").last.flatMap({ Double($0) }) else { continue }
            let name = String(line.prefix { $0 != "{" && $0 != " " })
            sums[name, default: 0] += value
        }
        return sums
    }

    /// The names a scrape declares (`# TYPE name kind`).
    static func declared(_ text: String) -> Set<String> {
        Set(text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { String($0.split(separator: " ")[2]) })
    }

    @Test("the table parses, names each metric once, and every name is defined in Sources/")
    func tableIsWellFormed() throws {
        let rows = try Self.documented()
        #expect(rows.count >= 40)
        #expect(Set(rows.map(\.name)).count == rows.count, "a metric is listed twice")
        var sources = ""
        let enumerator = FileManager.default.enumerator(at: Self.repository.appendingPathComponent("Sources"), includingPropertiesForKeys: nil)
        while let file = enumerator?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            sources += (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        }
        for row in rows {
            #expect(sources.contains("\"\(row.name)\""), "\(row.name) is documented but defined nowhere in Sources/")
            #expect(["counter", "gauge", "histogram"].contains(row.type), "\(row.name): type \(row.type)")
            #expect(!row.processes.isEmpty && row.processes.allSatisfy { ["api", "worker", "scheduler"].contains($0) }, "\(row.name)")
            #expect(row.type != "counter" || row.name.hasSuffix("_total"), "\(row.name): a counter ends in _total")
        }
    }

    @Test("after a load of every kind, each process exports only documented metrics, and each exercised one is non-zero")
    func everyDocumentedMetricIsSeen() async throws {
        let rows = try Self.documented()
        let stack = try await ObservedStack.start()
        do {
            try await Self.load(stack)
            let expected = Dictionary(grouping: rows.filter(\.exercised).flatMap { row in row.processes.map { ($0, row) } }, by: \.0)
            var missing: [String] = []
            var scrapes: [String: String] = [:]
            _ = await eventually(timeout: .seconds(90), every: .milliseconds(500)) {
                missing = []
                for process in ["api", "worker", "scheduler"] {
                    let text = await stack.metrics(process)
                    scrapes[process] = text
                    let values = Self.samples(text)
                    for (_, row) in expected[process] ?? [] {
                        let value = row.type == "histogram" ? values[row.name + "_count"] : values[row.name]
                        if (value ?? 0) <= 0 { missing.append("\(process): \(row.name)") }
                    }
                }
                return missing.isEmpty
            }
            #expect(missing.isEmpty, "documented as exercised by the load but zero or absent: \(missing)")
            let names = Set(rows.map(\.name))
            for (process, text) in scrapes {
                let undocumented = Self.declared(text).subtracting(names)
                #expect(undocumented.isEmpty, "\(process) exports metrics docs/metrics.md does not list: \(undocumented.sorted())")
                for row in rows where Self.declared(text).contains(row.name) {
                    #expect(row.processes.contains(process), "\(row.name) comes from \(process), which its row does not name")
                }
            }
            // Conventions the table promises.
            let api = scrapes["api"] ?? ""
            #expect(api.contains("receiptq_api_responses_total{route=\"unmatched\",status=\"404\"}"), "an unknown path is one label")
            #expect(!api.contains("NotFound"))
            #expect(api.contains("receiptq_api_responses_total{route=\"/v1/receipts\",status=\"405\"}"), "a 405 names its route")
            #expect(scrapes["worker"]?.contains("receiptq_worker_breaker_state{environment=\"Production\",state=\"closed\"} 1") == true)
            #expect(scrapes["worker"]?.contains("# TYPE process_cpu_seconds_total counter") == true)
        } catch {
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    /// A little of everything: receipts (one twice), a bad token, an unknown path, a purchase
    /// Apple notifies and the backend submits by transaction id (its first lookup answered 429), a
    /// consumption request.
    static func load(_ stack: ObservedStack) async throws {
        for index in 1...3 {
            let receipt = try await stack.fixture.mintReceipt(transaction: "m\(index)")
            let answer = try await stack.api("POST", "/v1/receipts", ["receipt_data": receipt, "transaction_id": "m\(index)", "user_id": "u\(index)"])
            #expect(answer.status == 202)
            if index == 1 {
                #expect(try await stack.api("POST", "/v1/receipts", ["receipt_data": receipt, "transaction_id": "m1", "user_id": "u1"]).status == 200)
            }
        }
        #expect(try await stack.api("GET", "/v1/receipts/1", token: "not-a-token").status == 401)
        #expect(try await stack.api("GET", "/no/such/path").status == 404)
        #expect(try await stack.api("DELETE", "/v1/receipts").status == 405)
        #expect(try await stack.fakeAdmin("faults", ["endpoint": "get_transaction_info", "httpStatus": 429, "retryAfterMilliseconds": 300]).status < 300)
        let purchase = try await stack.fakeAdmin("purchases", ["productId": "com.example.coins", "type": "consumable"])
        let transaction = try #require(purchase.json["transactionId"] as? String, "fake said: \(purchase.json)")
        #expect(try await stack.api("POST", "/v1/transactions", ["transaction_id": transaction, "user_id": "u-tx"]).status == 202)
        #expect(try await stack.fakeAdmin("consumption-request", ["transactionId": transaction]).status == 202)
    }
}
