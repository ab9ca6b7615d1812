import ArgumentParser
import CommandSupport
import FakeAppStore
import Foundation
import HTTPClient
import OwnershipModel
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting

/// `receiptq-lab fraud`: every attack of the threat model against a running fleet, round after
/// round, then the invariants a paying user and an app's economy rely on — 0 deliveries to
/// non-payers, 0 extra grants, every payer delivered. Runs in a scratch database it creates and
/// drops; the API, workers and scheduler are child processes of the product binary, the fake App
/// Store a child of its own executable. Exits 1 when an invariant is broken.
struct FraudCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fraud",
        abstract: "Play every attack of the threat model against the API, workers and scheduler; check nobody but the payer is delivered.",
        discussion: """
            Each round makes fresh purchases in the fake App Store and fresh users, then plays: signed \
            transactions replayed under other accounts, their signature's twin (r, n − s), Apple's \
            re-signature, an edited payload, another CA's signature; an appAccountToken naming the \
            payer's order, submitted first by an attacker, and beside the attacker's own order and \
            token; transaction-id claims with and without a trusted backend token; a family member's \
            shared transaction replayed; a refund, then replays; a paid download's AppTransaction \
            submitted under other accounts, and edited; app receipts replayed, "MAAA" and \
            other unprovable bytes beside a victim's transaction id, the attacker's own receipt \
            beside it, a receipt signed by another CA — against the verify-receipt worker and the \
            server-api worker in turn; the scheduler's and the API's database logins forging states, \
            grants and events; and failed authentications from the backends' own address. Verdicts \
            are read through the API as a backend reads them, the ledger through SQL. \
            `./Deploy/dev fraud` runs it (release build); `./Deploy/dev test` runs one round.

            With --model, it plays generated histories instead (OwnershipModel): orders, purchases of \
            every kind, renewals, upgrades, family sharing, refunds and reversals, notifications \
            dropped, repeated and reordered, receipts, signed transactions and transaction ids \
            submitted by any user, restores, support grants, revocations and transfers — each \
            checked against the reference model (every verdict, every user's entitlements); a \
            history that disagrees is shrunk to the shortest that still does. `./Deploy/dev test` \
            plays a minute of them.
            """)

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var migrations: MigrationsOptions

    @Option(help: "Rounds of every attack (ignored with --duration).")
    var rounds = 3

    @Option(help: "Play rounds until this much time has passed (e.g. 2m); at least one round.")
    var duration: Duration?

    @Option(help: "Fake App Store latency range, verifyReceipt and the App Store Server API.")
    var latency = "20ms-100ms"

    @Option(help: "Folder for the child processes' logs, the fake's root certificate and key. Default: a new folder under /tmp.")
    var logDirectory: String?

    @Flag(help: "Print one JSON object.")
    var json = false

    @Flag(help: "Keep the scratch database for inspection.")
    var keepDatabase = false

    @Flag(help: "Play generated histories against the reference model of ownership instead of the attacks.")
    var model = false

    @Option(help: "With --model: histories to play (ignored with --duration).")
    var histories = 20

    @Option(help: "With --model: the first history's seed (default: a random one, printed).")
    var seed: UInt64?

    @Option(help: "With --model: histories played at once, in lockstep.")
    var parallel = 4

    @Option(help: "With --model: the most candidate histories run to shrink a failing one (0: no shrinking).")
    var shrinkBudget = 120

    func validate() throws {
        guard (1...10_000).contains(rounds) else { throw ValidationError("--rounds must be 1…10000") }
        if let duration, duration <= .zero { throw ValidationError("--duration must be positive") }
        guard FakeDurationRange(parsing: latency) != nil else { throw ValidationError("--latency must look like 20ms-100ms") }
        guard (1...100_000).contains(histories) else { throw ValidationError("--histories must be 1…100000") }
        guard (1...32).contains(parallel) else { throw ValidationError("--parallel must be 1…32") }
        guard (0...10_000).contains(shrinkBudget) else { throw ValidationError("--shrink-budget must be 0…10000") }
    }

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.fraud", defaultLevel: .error)
        let server = try database.configuration(applicationName: "receiptq-fraud")
        let scratch = try await ScratchDatabase.migrated(server: server, purpose: "fraud", migrations: try migrations.load())
        if model {
            let report: ModelRounds.Report
            do {
                report = try await playModel(scratch)
            } catch {
                await scratch.drop(keep: keepDatabase)
                throw error
            }
            await scratch.drop(keep: keepDatabase)
            print(json ? ModelReport.json(report) : ModelReport.text(report))
            if !report.passed { throw ExitCode(1) }
            return
        }
        let report: FraudReport
        do {
            report = try await play(scratch)
        } catch {
            await scratch.drop(keep: keepDatabase)
            throw error
        }
        await scratch.drop(keep: keepDatabase)
        print(json ? report.json() : report.text())
        if !report.passed { throw ExitCode(1) }
    }

    private func play(_ scratch: ScratchDatabase) async throws -> FraudReport {
        let start = ContinuousClock.now
        let logs = URL(fileURLWithPath: logDirectory ?? "/tmp/receiptq-fraud-\(getpid())")
        let http = HTTPClient(configuration: HTTPClientConfiguration(maxTotalConnections: 256))
        let pool = PostgresPool(configuration: scratch.configuration, size: 4)
        let schedulerLogin = PostgresPool(configuration: try await scratch.configuration(as: .scheduler), size: 1)
        let apiLogin = PostgresPool(configuration: try await scratch.configuration(as: .api), size: 1)
        defer {
            pool.shutdown()
            schedulerLogin.shutdown()
            apiLogin.shutdown()
        }
        progress("starting the fake App Store, the API, a verify-receipt and a server-api worker, the scheduler; logs in \(logs.path)")
        let fleet: FraudFleet
        do {
            fleet = try await FraudFleet.start(scratch: scratch, logs: logs, latency: latency,
                                               migrationsDirectory: migrations.directory, http: http)
        } catch {
            await http.shutdown()
            throw error
        }
        let tally = FraudTally()
        var played = 0, pinned = true
        do {
            let store = try FraudStore(fake: fleet.fake, http: http)
            repeat {
                played += 1
                let began = ContinuousClock.now
                pinned = await FraudRound(number: played, fleet: fleet, store: store, tally: tally, pool: pool, schedulerLogin: schedulerLogin,
                                          apiLogin: apiLogin, http: http).play() && pinned
                progress(String(format: "round %d played in %.1f s", played, (ContinuousClock.now - began).seconds))
            } while duration.map { ContinuousClock.now - start < $0 } ?? (played < rounds)
        } catch {
            await fleet.stop()
            await http.shutdown()
            throw error
        }
        progress("checking the ledger")
        let alive = fleet.allRunning
        let state = tally.snapshot()
        // Every move, re-read and check, for a look at what a row of the table sums up.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try? encoder.encode(state).write(to: logs.appendingPathComponent("moves.json"))
        let ledger: FraudLedger
        do {
            ledger = try await FraudLedger.read(pool: pool, tally: state, backend: fleet.backend(http))
        } catch {
            await fleet.stop()
            await http.shutdown()
            throw error
        }
        await fleet.stop()
        await http.shutdown()
        return FraudReport(tally: state, ledger: ledger, invariants: ledger.invariants(state) + state.playInvariants(pinned: pinned, processesAlive: alive),
                           rounds: played, seconds: (ContinuousClock.now - start).seconds, appleLatency: latency, logDirectory: logs.path)
    }

    /// The ownership model's histories against a fleet whose notifications the histories deliver.
    private func playModel(_ scratch: ScratchDatabase) async throws -> ModelRounds.Report {
        let logs = URL(fileURLWithPath: logDirectory ?? "/tmp/receiptq-fraud-model-\(getpid())")
        let http = HTTPClient(configuration: HTTPClientConfiguration(maxTotalConnections: 256))
        let owner = PostgresPool(configuration: scratch.configuration, size: 2)
        let support = PostgresPool(configuration: try await scratch.configuration(as: .support), size: 2)
        defer {
            owner.shutdown()
            support.shutdown()
        }
        try await owner.withConnection { connection in
            for product in ModelPlayer.catalog { try ProductCatalog.set(product, on: connection) }
        }
        progress("starting the fake App Store (notifications kept for the histories to deliver), the API, a worker, the scheduler; logs in \(logs.path)")
        let fleet: FraudFleet
        do {
            fleet = try await FraudFleet.start(scratch: scratch, logs: logs, latency: latency, migrationsDirectory: migrations.directory,
                                               http: http, notifications: false, verifiers: [.verifyReceipt])
        } catch {
            await http.shutdown()
            throw error
        }
        let first = seed ?? UInt64.random(in: 1...UInt64(UInt32.max))
        progress("histories from seed \(first) (replay one: receiptq-lab fraud --model --histories 1 --seed <its seed>)")
        let rounds = ModelRounds(fleet: fleet, http: http, quiet: ModelQuiet(pool: owner), support: support, generator: HistoryGenerator(),
                                 parallel: parallel, shrinkBudget: shrinkBudget)
        do {
            let report = try await rounds.run(seed: first, count: duration == nil ? histories : nil, duration: duration) { progress($0) }
            await fleet.stop()
            await http.shutdown()
            return report
        } catch {
            await fleet.stop()
            await http.shutdown()
            throw error
        }
    }

    private func progress(_ line: String) {
        FileHandle.standardError.write(Data("fraud: \(line)\n".utf8))
    }
}
