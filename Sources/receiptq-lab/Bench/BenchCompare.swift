import ArgumentParser
import BenchHistory
import CommandSupport
import Foundation
import PostgresTesting
import ReceiptQueueTesting

/// `receiptq-lab bench compare --a DIR --b DIR -- <bench args>`: two builds measured in turn on
/// this machine (A, B, A, B…), each by its own lab as it was at its commit (so a bench's code is
/// the commit's), read by this lab's `ReportReader` and put beside a yardstick this lab measures
/// just before each run. Prints per figure both medians, B over A against the yardstick, and the
/// spreads with and without it. `./Deploy/dev bench-compare A B` builds the commits and calls this.
struct BenchCompare: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Run one bench alternately with two release builds (checkouts) and compare their figures against the yardstick.")

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Checkout A: its .build/release holds receiptq and receiptq-lab; its SQL/migrations the schema.") var a: String
    @Option(help: "Checkout B, as --a.") var b: String
    @Option(help: "Runs of each.") var rounds = 3
    @Option(name: .customLong("record"), help: ArgumentHelp("Append every run to this history file.", valueName: "file")) var recordFile: String?
    @Argument(parsing: .postTerminator, help: "The bench and its flags, as after `receiptq-lab bench` (e.g. e2e --kind signed).")
    var bench: [String] = []

    func validate() throws {
        guard ReportReader.named(Self.benchName(bench)) != nil else {
            throw ValidationError("give a bench after --: one of \(ReportReader.all.map(\.bench).joined(separator: ", ")) (e2e-signed is `e2e --kind signed`)\(bench.first.map { "; not \($0)" } ?? "")")
        }
        guard (1...50).contains(rounds) else { throw ValidationError("--rounds must be 1…50") }
        for (flag, root) in [("--a", a), ("--b", b)] where !FileManager.default.isExecutableFile(atPath: Self.lab(root)) {
            throw ValidationError("\(flag): no release build at \(Self.lab(root)) (./Deploy/dev bench-compare builds it)")
        }
    }

    /// `e2e --kind signed` → `e2e-signed`; `e2e` → `e2e-receipts`; otherwise the first word.
    static func benchName(_ arguments: [String]) -> String {
        guard arguments.first == "e2e" else { return arguments.first ?? "" }
        let signed = zip(arguments, arguments.dropFirst()).contains { $0 == "--kind" && $1 == "signed" } || arguments.contains("--kind=signed")
        return signed ? "e2e-signed" : "e2e-receipts"
    }

    static func lab(_ root: String) -> String { root + "/.build/release/receiptq-lab" }

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.benchcompare", defaultLevel: .error)
        let name = Self.benchName(bench)
        guard let reader = ReportReader.named(name) else { throw ValidationError("no reader for \(name)") }
        let server = try database.configuration(applicationName: "receiptq-bench")
        let scratch = try await ScratchDatabase.create(server: server, purpose: "compare")
        do {
            try await compare(name: name, reader: reader, scratch: scratch)
            await scratch.drop()
        } catch {
            await scratch.drop()
            throw error
        }
    }

    func compare(name: String, reader: ReportReader, scratch: ScratchDatabase) async throws {
        let sides = [(root: a, commit: BenchRecording.commit(directory: a)), (root: b, commit: BenchRecording.commit(directory: b))]
        var records: [[BenchRecord]] = [[], []]
        for round in 1...rounds {
            for (index, side) in sides.enumerated() {
                let yardstick = try await YardstickProbe.measure(scratch.configuration)
                FileHandle.standardError.write(Data("bench compare: round \(round)/\(rounds), \(side.commit): \(yardstick.line)\n".utf8))
                let report = try await runBench(in: side.root)
                let record = BenchRecord(bench: name, profile: "compare", commit: side.commit, build: "release", date: BenchRecording.now(),
                                         machine: BenchRecording.machine, arguments: bench, yardstick: yardstick, figures: try reader.read(report))
                records[index].append(record)
                if let recordFile { try BenchRecording.append(record, to: recordFile) }
                FileHandle.standardError.write(Data((record.ratioLines().joined(separator: "\n") + "\n").utf8))
            }
        }
        print(Comparison(a: records[0], b: records[1]).markdown(aName: sides[0].commit, bName: sides[1].commit))
    }

    /// The checkout's own lab, with its own product binary and migrations; its report text.
    func runBench(in root: String) async throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["RECEIPTQ_BIN"] = root + "/.build/release/receiptq"
        environment["RECEIPTQ_MIGRATIONS"] = root + "/SQL/migrations"
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("receiptq-compare-\(getpid()).out")
        defer { try? FileManager.default.removeItem(at: output) }
        let process = try SpawnedProcess(executable: Self.lab(root), arguments: ["bench"] + bench, environment: environment,
                                         stdout: .file(output.path))
        let status = await process.wait(timeout: .seconds(3600))
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        guard status == 0 else { throw BenchError("the bench of \(root) exited \(status.map(String.init) ?? "late"):\n\(text)") }
        return text
    }
}
