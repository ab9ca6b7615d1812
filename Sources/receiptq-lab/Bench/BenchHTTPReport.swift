import CommandSupport
import Foundation
import ReceiptQueue   // Duration.seconds

/// The figures `bench http` prints, as text or one JSON object.
struct BenchHTTPReport: Codable {
    var concurrency: Int
    var requests: Int
    var wallSeconds: Double
    /// Requests finished per second over the whole run (ramp-up and tail included).
    var requestsPerSecond: Double
    /// Requests per second between the 10th and 90th percentile finish times (the steady state).
    var steadyRequestsPerSecond: Double
    var cpuSeconds: Double
    var cpuSecondsPer1000Requests: Double
    var peakRSSMegabytes: Double
    var latencyP50Seconds: Double
    var latencyP99Seconds: Double
    var outcomes: [String: Int]
    var fake = ""
    var openFilesLimit = 0
    var receiptBytes: Int

    init(concurrency: Int, requests: Int, wall: Duration, tally: BenchTally, cpuSeconds: Double,
         peakRSSBytes: Int, receiptBytes: Int) {
        self.concurrency = concurrency
        self.requests = requests
        wallSeconds = wall.seconds
        requestsPerSecond = Double(requests) / max(wall.seconds, 1e-9)
        let finishes = tally.finishTimes.sorted()
        let low = finishes[Int(Double(finishes.count - 1) * 0.1)]
        let high = finishes[Int(Double(finishes.count - 1) * 0.9)]
        steadyRequestsPerSecond = high > low ? Double(finishes.count) * 0.8 / (high - low) : requestsPerSecond
        self.cpuSeconds = cpuSeconds
        cpuSecondsPer1000Requests = cpuSeconds / Double(requests) * 1_000
        peakRSSMegabytes = Double(peakRSSBytes) / 1_048_576
        let latencies = tally.latencies.sorted()
        latencyP50Seconds = latencies[latencies.count / 2]
        latencyP99Seconds = latencies[min(latencies.count - 1, Int(Double(latencies.count) * 0.99))]
        outcomes = tally.outcomes
        self.receiptBytes = receiptBytes
    }

    func json(fake: String, openFilesLimit: Int) -> String {
        var report = self
        report.fake = fake
        report.openFilesLimit = openFilesLimit
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(report)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    func text(fake: String, openFilesLimit: Int) -> String {
        func f(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }
        return """
            bench http: \(requests) requests, \(concurrency) in flight, fake App Store (\(fake)), \(receiptBytes)-char receipts
              wall                   \(f(wallSeconds)) s
              requests/s             \(f(requestsPerSecond, 0)) overall, \(f(steadyRequestsPerSecond, 0)) steady (p10–p90 finishes)
              CPU                    \(f(cpuSeconds)) s = \(f(cpuSecondsPer1000Requests, 3)) s per 1,000 requests
              peak RSS               \(f(peakRSSMegabytes, 1)) MB
              latency p50 / p99      \(f(latencyP50Seconds)) s / \(f(latencyP99Seconds)) s
              outcomes               \(outcomes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
              open-files limit       \(openFilesLimit)
            """
    }
}
