import API
import ArgumentParser
import CommandSupport
import Foundation
import HTTPClient
import Logging
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting
import ServiceLifecycle

/// `receiptq-lab bench api`: accepted receipts per second and latency through the real HTTP API, with
/// group commit and — in the same run, on the same server and database — with one INSERT and
/// commit per request as the baseline. Starts the API over a scratch database it creates and
/// drops (the role needs CREATEDB), in this process or as a child process (`--server`). The load
/// generator is the project's HTTPClient (libcurl multi on one thread), one keep-alive
/// connection per simulated client. Client, API and PostgreSQL share the machine's cores, so
/// each mode also reports CPU per accepted receipt (bench process, API child, whole machine),
/// and `--http-only` measures the same requests against a route that does no JSON and no SQL:
/// the ceiling of the HTTP layers alone on this machine.
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

    @Option(help: "Where the API runs: in-process (shares the load generator's threads) or child (a receiptq api process).")
    var server: BenchAPIServer.Placement = .inProcess

    @Flag(help: "Also post the same bodies to a route that answers 405 without JSON or SQL (the HTTP layers' ceiling).")
    var httpOnly = false

    @Flag(help: "Print one JSON object.")
    var json = false

    func validate() throws {
        guard (1...4096).contains(connections) else { throw ValidationError("--connections must be 1…4096") }
        guard duration > .zero else { throw ValidationError("--duration must be positive") }
        guard receiptBytes >= 16 else { throw ValidationError("--receipt-bytes must be at least 16") }
    }

    struct Result: Codable {
        var connections: Int, receiptBytes: Int, seconds: Double
        var server: BenchAPIServer.Placement
        var groupCommit: BenchAPILoad.Figures
        var baseline: BenchAPILoad.Figures
        var httpOnly: BenchAPILoad.Figures?
        var speedup: Double
    }

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.benchapi", defaultLevel: .error)
        let files = try migrations.load()
        let server = try database.configuration(applicationName: "receiptq-bench-api")
        let scratch = try await ScratchDatabase.migrated(server: server, purpose: "api", migrations: files)
        do {
            let grouped = try await measure(scratch: scratch, migrations: files, groupCommit: true, seed: "g")
            let single = try await measure(scratch: scratch, migrations: files, groupCommit: false, seed: "s")
            let ceiling = httpOnly ? try await measure(scratch: scratch, migrations: files, groupCommit: true, seed: "h", path: "/v1/receipts/1", expectedStatus: 405) : nil
            await scratch.drop()
            report(Result(connections: connections, receiptBytes: receiptBytes, seconds: duration.seconds, server: self.server,
                          groupCommit: grouped, baseline: single, httpOnly: ceiling,
                          speedup: grouped.acceptedPerSecond / max(single.acceptedPerSecond, 1)))
        } catch {
            await scratch.drop()
            throw error
        }
    }

    /// Runs an API server with or without group commit and loads `path` for `duration`.
    func measure(scratch: ScratchDatabase, migrations files: [ReceiptQueue.Migration], groupCommit: Bool, seed: String,
                 path: String = "/v1/receipts", expectedStatus: Int = 202) async throws -> BenchAPILoad.Figures {
        let token = "bench-\(UUID().uuidString)"
        let api = try await BenchAPIServer.start(server, scratch: scratch, migrations: files, token: token,
                                                 groupCommit: groupCommit, poolSize: poolSize)
        do {
            var load = BenchAPILoad(url: api.baseURL + path, token: token, connections: connections,
                                    receiptBytes: receiptBytes, seed: seed)
            load.expectedStatus = expectedStatus
            let figures = try await api.measuring(database: scratch.name) { try await load.run(for: duration) }
            try await api.stop()
            return figures
        } catch {
            try? await api.stop()
            throw error
        }
    }

    func report(_ result: Result) {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try! encoder.encode(result), as: UTF8.self))
            return
        }
        func line(_ name: String, _ f: BenchAPILoad.Figures, _ unit: String = "accepted") -> String {
            "  \(name)  \(Int(f.acceptedPerSecond)) \(unit)/s   p50 \(String(format: "%.1f", f.p50Milliseconds)) ms   "
                + "p99 \(String(format: "%.1f", f.p99Milliseconds)) ms   (\(f.accepted) \(unit), \(f.failed) failed, mean batch \(String(format: "%.1f", f.meanBatch)))\n"
                + "    CPU ms per request: bench process \(String(format: "%.3f", f.benchProcessCPUMilliseconds))"
                + (result.server == .child ? ", API child \(String(format: "%.3f", f.apiChildCPUMilliseconds))" : "")
                + ", PostgreSQL \(String(format: "%.3f", f.postgresCPUMilliseconds)), whole machine \(String(format: "%.3f", f.machineCPUMilliseconds))"
        }
        print("""
            bench api: \(result.connections) connections, \(result.receiptBytes)-byte receipts, \(result.seconds) s per mode, API \(result.server.rawValue)
            \(line("group commit          ", result.groupCommit))
            \(line("one commit per request", result.baseline))
              group / baseline  \(String(format: "%.1f", result.speedup))×
            """)
        if let ceiling = result.httpOnly {
            print(line("HTTP only (405, no JSON/SQL)", ceiling, "answered"))
        }
    }
}
