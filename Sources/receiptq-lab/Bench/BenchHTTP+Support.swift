import CommandSupport
import FakeAppStore
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import ReceiptQueue   // Duration.seconds
import ReceiptQueueTesting

/// Hands out request numbers to the bench's loops.
final class BenchCounter: Sendable {
    private let value = Mutex(0)

    func take(below limit: Int) -> Int? {
        value.withLock { value in
            guard value < limit else { return nil }
            defer { value += 1 }
            return value
        }
    }
}

/// One finished request of `bench http`.
struct BenchSample: Sendable {
    let latency: Duration
    let finishedAt: Duration
    let outcome: String
}

/// What `bench http` counts as requests finish.
struct BenchTally {
    var latencies: [Double] = []
    var finishTimes: [Double] = []
    var outcomes: [String: Int] = [:]

    mutating func add(_ sample: BenchSample) {
        latencies.append(sample.latency.seconds)
        finishTimes.append(sample.finishedAt.seconds)
        outcomes[sample.outcome, default: 0] += 1
    }
}

/// Process CPU time (user + system, all threads) and peak resident memory, from getrusage.
struct ResourceUsage {
    let cpuSeconds: Double
    let peakRSSBytes: Int

    static func now() -> ResourceUsage {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1_000_000
        return ResourceUsage(cpuSeconds: cpu, peakRSSBytes: Int(usage.ru_maxrss) * 1_024)  // Linux: KiB
    }
}

/// The fake App Store `bench http` talks to: a child process (default), in this process, or given.
final class BenchFake {
    let productionURL: String
    let location: String
    private let child: SpawnedProcess?
    private let server: FakeAppStoreServer?

    private init(productionURL: String, location: String, child: SpawnedProcess?, server: FakeAppStoreServer?) {
        self.productionURL = productionURL
        self.location = location
        self.child = child
        self.server = server
    }

    /// `arguments`: more `receiptq-fake-appstore` flags for a child fake (outages, faults).
    static func start(url: String?, latency: String, inProcess: Bool, arguments: [String] = []) async throws -> BenchFake {
        if let url { return BenchFake(productionURL: url, location: "external", child: nil, server: nil) }
        if inProcess {
            let range = FakeDurationRange(parsing: latency) ?? FakeDurationRange(lower: .seconds(3), upper: .seconds(6))
            let server = try await FakeAppStoreServer.start(configuration: .init(latency: range))
            return BenchFake(productionURL: server.productionURL, location: "in-process", child: nil, server: server)
        }
        let output = Pipe()
        let process = try SpawnedProcess(executable: ReceiptQBinary.fakeAppStore.path,
                                         arguments: ["--port", "0", "--latency", latency] + arguments,
                                         stdout: .descriptor(output.fileHandleForWriting.fileDescriptor))
        try output.fileHandleForWriting.close()   // the child holds the write end: EOF when it exits
        // The child prints `production: URL` first; read until that line arrives.
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let line = text.split(separator: "\n").first, line.hasPrefix("production: ") else {
            process.terminate()
            throw BenchError("the fake App Store child did not print its URL")
        }
        return BenchFake(productionURL: String(line.dropFirst("production: ".count)), location: "child process \(process.pid)", child: process, server: nil)
    }

    /// Requests the fake answered so far (its `GET /stats`).
    func requestCount() async throws -> Int {
        try await stats().requests
    }

    /// The fake's `GET /stats`.
    func stats() async throws -> FakeAppStoreStats.Snapshot {
        if let server { return server.stats.snapshot() }
        guard let url = URL(string: productionURL.replacingOccurrences(of: "/production/verifyReceipt", with: "/stats")) else {
            throw BenchError("no stats URL for \(productionURL)")
        }
        let (data, _) = try await URLSession.shared.data(from: url)
        return try JSONDecoder().decode(FakeAppStoreStats.Snapshot.self, from: data)
    }

    func stop() async {
        if let child, child.isRunning {
            child.terminate()
            child.waitUntilExit()
        }
        await server?.stop()
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

