import ArgumentParser
import CommandSupport
import Foundation
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting

/// `receiptq-lab bench notifications`: App Store Server Notifications V2 at the endpoint Apple
/// POSTs to, then applied by workers. Issue 14's goal: ≥ 3,000 accepted/s with p99 ≤ 50 ms.
///
/// In a scratch database it creates and drops: notifications signed beforehand by the fake's CA
/// (`BenchNotificationPayloads`) are posted to `POST /v1/apple/notifications` of an API that
/// trusts that CA — with group commit, then with one commit per notification (the baseline,
/// same run, same database), both closed loop; then at a fixed `--rate` (open loop: answer time
/// counted from when each was due, as Apple would see it). Finally `--workers` real `receiptq
/// worker` processes drain everything stored: applied/s. A closed loop of C connections at X/s
/// has a mean answer time of C/X by Little's law, so its p99 says more about C than about the
/// server; the open-loop figure is the one to read against the goal.
struct BenchNotifications: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications",
        abstract: "POST signed App Store notifications (group commit vs. one commit each, closed and open loop), then apply them with workers.")

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var migrations: MigrationsOptions

    @Option(help: "Concurrent connections of the closed loop (and the most the open loop opens).")
    var connections = 64

    @Option(help: "Measured time per closed-loop mode, and length of the open-loop run (e.g. 5s).")
    var duration: Duration = .seconds(5)

    @Option(help: "Notifications signed for each closed-loop mode (a mode ends early when they run out).")
    var notifications = 20_000

    @Option(help: "Open-loop rate, notifications per second (0: skip the open loop).")
    var rate = 3_000.0

    @Option(help: "Database connections of the API.")
    var poolSize = 8

    @Option(help: "Where the API runs: in-process (shares the load generator's threads) or child (a receiptq api process).")
    var server: BenchAPIServer.Placement = .child

    @Option(help: "Worker processes applying the stored notifications (0: skip).")
    var workers = 2

    @Option(help: "Longest time the workers get to apply what was stored (the rate is over what they applied).")
    var drainTime: Duration = .seconds(30)

    @Flag(help: "Print one JSON object.")
    var json = false

    @OptionGroup var recording: BenchRecording

    func validate() throws {
        guard (1...4096).contains(connections) else { throw ValidationError("--connections must be 1…4096") }
        guard duration > .zero, notifications > 0 else { throw ValidationError("--duration and --notifications must be positive") }
        guard rate >= 0, rate <= 50_000 else { throw ValidationError("--rate must be 0…50000") }
        guard (0...8).contains(workers), drainTime > .zero else { throw ValidationError("--workers must be 0…8, --drain-time positive") }
        try recording.validate(json: json)
    }

    struct Result: Codable {
        var server: BenchAPIServer.Placement
        var groupCommit: BenchNotificationLoad.Figures
        var baseline: BenchNotificationLoad.Figures
        var openLoop: BenchNotificationLoad.Figures?
        var speedup: Double
        var applied: BenchNotificationDrain.Figures?
    }

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.benchnotifications", defaultLevel: .error)
        let files = try migrations.load()
        let payloads = try BenchNotificationPayloads()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("receiptq-bench-notifications-\(getpid()).pem").path
        try payloads.rootPEM.write(toFile: root, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let signedData = BenchAPIServer.SignedData(rootPEMPath: root, bundleId: BenchNotificationPayloads.bundleId)
        let openCount = Int(rate * duration.seconds)
        if !json { FileHandle.standardError.write(Data("bench notifications: signing \(notifications * 2 + openCount) notifications…\n".utf8)) }
        let grouped = try await payloads.bodies(notifications, tag: "g")
        let single = try await payloads.bodies(notifications, tag: "s")
        let open = try await payloads.bodies(openCount, tag: "o")

        let scratch = try await ScratchDatabase.migrated(server: try database.configuration(applicationName: "receiptq-bench-notifications"),
                                                         purpose: "notifications", migrations: files)
        let pool = PostgresPool(configuration: scratch.configuration, size: 2)
        do {
            let before = json ? nil : try await recording.yardstick(scratch.configuration)
            let groupFigures = try await measure(scratch, files, signedData, groupCommit: true) { await $0.closedLoop(grouped, for: duration) }
            let baseline = try await measure(scratch, files, signedData, groupCommit: false) { await $0.closedLoop(single, for: duration) }
            let openFigures = open.isEmpty ? nil : try await measure(scratch, files, signedData, groupCommit: true) { await $0.openLoop(open, rate: rate) }
            let drained = workers > 0 ? try await BenchNotificationDrain(scratch: scratch, workers: workers, signedData: signedData).run(pool: pool, timeout: drainTime) : nil
            let yardstick = try await recording.closing(before, on: scratch.configuration)
            pool.shutdown()
            await scratch.drop()
            let result = Result(server: server, groupCommit: groupFigures, baseline: baseline, openLoop: openFigures,
                                speedup: groupFigures.acceptedPerSecond / max(baseline.acceptedPerSecond, 1), applied: drained)
            if json { print(BenchE2E.json(result)) } else { try recording.finish(bench: "notifications", report: report(result), yardstick: yardstick) }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            pool.shutdown()
            await scratch.drop()
            throw error
        }
    }

    /// Starts an API (with or without group commit), runs `load` against it, adds CPU figures.
    private func measure(_ scratch: ScratchDatabase, _ files: [ReceiptQueue.Migration], _ signedData: BenchAPIServer.SignedData, groupCommit: Bool,
                         _ load: (BenchNotificationLoad) async throws -> BenchNotificationLoad.Figures) async throws -> BenchNotificationLoad.Figures {
        let api = try await BenchAPIServer.start(server, scratch: scratch, migrations: files, token: "bench-\(UUID().uuidString)",
                                                 groupCommit: groupCommit, poolSize: poolSize, signedData: signedData)
        do {
            let figures = try await api.measuring(database: scratch.name) {
                try await load(BenchNotificationLoad(url: api.baseURL + "/v1/apple/notifications", connections: connections))
            }
            try await api.stop()
            return figures
        } catch {
            try? await api.stop()
            throw error
        }
    }

    private func report(_ result: Result) -> String {
        func f(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }
        func line(_ name: String, _ m: BenchNotificationLoad.Figures) -> String {
            "  \(name)  \(Int(m.acceptedPerSecond)) accepted/s   p50 \(f(m.p50Milliseconds)) ms   p99 \(f(m.p99Milliseconds)) ms   "
                + "max \(f(m.maxMilliseconds)) ms   (\(m.accepted) accepted, \(m.failed) failed, mean batch \(f(m.meanBatch)); \(m.shape))\n"
                + "    CPU ms per notification: bench process \(f(m.benchProcessCPUMilliseconds, 3))"
                + (result.server == .child ? ", API child \(f(m.apiChildCPUMilliseconds, 3))" : "")
                + ", PostgreSQL \(f(m.postgresCPUMilliseconds, 3)), whole machine \(f(m.machineCPUMilliseconds, 3))"
        }
        var text = """
            bench notifications: POST /v1/apple/notifications, signed REFUND notifications, API \(result.server.rawValue)
            \(line("group commit          ", result.groupCommit))
            \(line("one commit per request", result.baseline))
              group / baseline  \(f(result.speedup))×
            """
        if let open = result.openLoop { text += "\n" + line("group commit, open loop", open) }
        if let applied = result.applied {
            text += "\n  applied by \(applied.workers) receiptq worker processes: \(Int(applied.appliedPerSecond)) applied/s "
                + "(\(applied.applied) of \(applied.stored) applied, \(applied.failed) failed, in \(f(applied.seconds)) s; "
                + "CPU ms per notification: workers \(f(applied.workerCPUMilliseconds, 3)), PostgreSQL \(f(applied.postgresCPUMilliseconds, 3)))"
        }
        return text
    }
}
