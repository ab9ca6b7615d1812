import API
import ArgumentParser
import Foundation
import HTTPClient
import Logging
import Postgres
import ReceiptQueue
import ServiceLifecycle

/// `receiptq bench api`: accepted receipts per second and latency through the real HTTP API, with
/// group commit and — in the same run, on the same server and database — with one INSERT and
/// commit per request as the baseline. Starts the API in-process over a scratch database it
/// creates and drops (the role needs CREATEDB). The load generator is the project's HTTPClient
/// (libcurl multi on one thread), one keep-alive connection per simulated client.
struct BenchAPI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "api",
        abstract: "POST receipts with N concurrent connections; group commit vs. one commit per request.")

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var migrations: MigrationsOptions

    @Option(help: "Concurrent connections, each posting one receipt after another.")
    var connections = 256

    @Option(help: "Measured time per mode (e.g. 5s).")
    var duration: Duration = .seconds(5)

    @Option(help: "Size of each receipt_data, in bytes of base64.")
    var receiptBytes = 6 * 1024

    @Option(help: "Database connections of the API.")
    var poolSize = 8

    @Flag(help: "Print one JSON object.")
    var json = false

    func validate() throws {
        guard (1...4096).contains(connections) else { throw ValidationError("--connections must be 1…4096") }
        guard duration > .zero else { throw ValidationError("--duration must be positive") }
        guard receiptBytes >= 16 else { throw ValidationError("--receipt-bytes must be at least 16") }
    }

    struct Result: Codable {
        var connections: Int, receiptBytes: Int, seconds: Double
        var groupCommit: BenchAPILoad.Figures
        var baseline: BenchAPILoad.Figures
        var speedup: Double
    }

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.benchapi", defaultLevel: .error)
        let files = try migrations.load()
        let server = try database.configuration(applicationName: "receiptq-bench-api")
        let scratch = try await ScratchDatabase.create(server: server, purpose: "api", migrations: files)
        do {
            let grouped = try await measure(database: scratch.configuration, migrations: files, groupCommit: true, seed: "g")
            let single = try await measure(database: scratch.configuration, migrations: files, groupCommit: false, seed: "s")
            await scratch.drop()
            report(Result(connections: connections, receiptBytes: receiptBytes, seconds: duration.seconds,
                          groupCommit: grouped, baseline: single, speedup: grouped.acceptedPerSecond / max(single.acceptedPerSecond, 1)))
        } catch {
            await scratch.drop()
            throw error
        }
    }

    /// Runs an API server with or without group commit and loads it for `duration`.
    func measure(database: PostgresConfiguration, migrations files: [ReceiptQueue.Migration], groupCommit: Bool, seed: String) async throws -> BenchAPILoad.Figures {
        let token = "bench-\(UUID().uuidString)"
        var settings = APIConfiguration(port: 0, tokens: try TokenDigests(hexList: TokenDigests.hexDigest(of: token)),
                                        rateLimitPerSecond: 0, poolSize: poolSize)
        settings.groupCommit.enabled = groupCommit
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let logger = Logger(label: "receiptq.benchapi")
        let api = APIServer(configuration: settings, database: database, migrations: files, logger: logger,
                            onListening: { continuation.yield($0) })
        let group = ServiceGroup(services: [api], logger: logger)
        let running = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw ValidationError("the API did not start") }
        let load = BenchAPILoad(url: "http://127.0.0.1:\(port)/v1/receipts", token: token, connections: connections,
                                receiptBytes: receiptBytes, seed: seed)
        var figures = try await load.run(for: duration)
        figures.meanBatch = BenchAPILoad.meanBatch(api.metricsText())
        await group.triggerGracefulShutdown()
        try await running.value
        return figures
    }

    func report(_ result: Result) {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try! encoder.encode(result), as: UTF8.self))
            return
        }
        func line(_ name: String, _ f: BenchAPILoad.Figures) -> String {
            "  \(name)  \(Int(f.acceptedPerSecond)) accepted/s   p50 \(String(format: "%.1f", f.p50Milliseconds)) ms   "
                + "p99 \(String(format: "%.1f", f.p99Milliseconds)) ms   (\(f.accepted) accepted, \(f.failed) failed, mean batch \(String(format: "%.1f", f.meanBatch)))"
        }
        print("""
            bench api: \(result.connections) connections, \(result.receiptBytes)-byte receipts, \(result.seconds) s per mode
            \(line("group commit          ", result.groupCommit))
            \(line("one commit per request", result.baseline))
              group / baseline  \(String(format: "%.1f", result.speedup))×
            """)
    }
}
