import ArgumentParser
import BenchHistory
import Foundation
import Postgres

/// What every bench that keeps a history takes: the yardstick measured before its work, its
/// figures read back from its report (`ReportReader`), `--record` to the history and `--guard`
/// against it (docs/benchmarks.md, "Reading a figure across days").
struct BenchRecording: ParsableArguments, Sendable {
    @Option(name: .customLong("record"), help: ArgumentHelp(
        "Append this run (figures, yardstick, commit, date) to a benchmark history as one JSON line; docs/bench-results.jsonl is the repository's.",
        valueName: "file"))
    var recordFile: String?

    @Option(help: "The shape of this run as the history names it (only records of one bench, profile and build compare).")
    var profile = "default"

    @Option(name: .customLong("guard"), help: ArgumentHelp(
        "Compare the guarded figures, against the yardstick, with the last record of this bench, profile and build in this file; exit 1 when one is --guard-factor times worse.",
        valueName: "file"))
    var guardFile: String?

    @Option(help: "How many times worse than recorded a guarded figure may be.")
    var guardFactor = 1.5

    @Option(help: "Runs of the yardstick's two loops, before and after the bench (the fastest is kept).")
    var yardstickRuns = 5

    var wanted: Bool { recordFile != nil || guardFile != nil }

    func validate(json: Bool) throws {
        guard !(json && wanted) else { throw ValidationError("--record and --guard read the printed report: not with --json") }
        guard guardFactor > 1, guardFactor.isFinite else { throw ValidationError("--guard-factor must be a ratio over 1") }
        guard (1...50).contains(yardstickRuns) else { throw ValidationError("--yardstick-runs must be 1…50") }
    }

    /// The yardstick on `configuration`'s database, printed to stderr (the report stays clean).
    func yardstick(_ configuration: PostgresConfiguration) async throws -> Yardstick {
        let yardstick = try await YardstickProbe.measure(configuration, runs: yardstickRuns)
        FileHandle.standardError.write(Data("before the bench: \(yardstick.line)\n".utf8))
        return yardstick
    }

    /// The yardstick measured again after the bench's work, on the same database, and the run's
    /// yardstick made of both (`Yardstick.bracketing`): a burst of other work during the bench
    /// shows in one of the two.
    func closing(_ before: Yardstick?, on configuration: PostgresConfiguration) async throws -> Yardstick? {
        guard let before else { return nil }
        let after = try await YardstickProbe.measure(configuration, runs: yardstickRuns)
        let run = Yardstick.bracketing(before: before, after: after)
        FileHandle.standardError.write(Data("after the bench: \(after.line)\n".utf8))
        return run
    }

    /// Prints `report`, then its figures against `yardstick`; appends to the history; guards.
    func finish(bench: String, report: String, yardstick: Yardstick?) throws {
        print(report)
        guard let yardstick else { return }
        guard let reader = ReportReader.named(bench) else { throw ValidationError("no report reader for bench \(bench)") }
        let record = BenchRecord(bench: bench, profile: profile, commit: Self.commit(), build: Self.build, date: Self.now(),
                                 machine: Self.machine, arguments: Array(CommandLine.arguments.dropFirst()), yardstick: yardstick,
                                 figures: try reader.read(report))
        print("  \(yardstick.line)")
        for line in record.ratioLines() { print(line) }
        if let recordFile {
            try Self.append(record, to: recordFile)
            print("  recorded in \(recordFile)")
        }
        if let guardFile {
            let history = try BenchRecord.parse(history: try String(contentsOfFile: guardFile, encoding: .utf8))
            let baseline = BenchGuard.baseline(for: record, in: history)
            let against = "the median of \(baseline.count) recorded run\(baseline.count == 1 ? "" : "s") (\(Set(baseline.map(\.commit)).sorted().joined(separator: ", ")), \(baseline.last?.date.prefix(10) ?? "?"))"
            switch BenchGuard(factor: guardFactor).check(record, against: baseline, guarded: reader.guardedNames) {
            case .passed(let findings):
                print("  guard: passed against \(against): \(Self.describe(findings))")
            case .regressed(let findings):
                print("  guard: REGRESSED against \(against): \(Self.describe(findings.filter(\.regressed))) — more than \(guardFactor)× worse against the yardstick")
                throw ExitCode(1)
            case .cannotCompare(let why):
                print("  guard: cannot compare: \(why)")
                throw ExitCode(1)
            }
        }
    }

    static func describe(_ findings: [BenchGuard.Finding]) -> String {
        findings.map { "\($0.name) \(String(format: "%.3g", $0.now)) now, \(String(format: "%.3g", $0.recorded)) recorded: \(String(format: "%.2f", $0.worse))× worse" }
            .joined(separator: "; ")
    }

    static func append(_ record: BenchRecord, to path: String) throws {
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((try record.jsonLine() + "\n").utf8))
    }

    #if DEBUG
    static let build = "debug"
    #else
    static let build = "release"
    #endif

    static var machine: String {
        "\(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory / 1_073_741_824) GiB"
    }

    static func now() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date())
    }

    /// The commit measured: RECEIPTQ_COMMIT, else `directory`'s (this one's) git HEAD with
    /// `-dirty` when tracked files differ from it, else "unknown".
    static func commit(directory: String? = nil) -> String {
        if directory == nil, let commit = ProcessInfo.processInfo.environment["RECEIPTQ_COMMIT"], !commit.isEmpty { return commit }
        let place = directory.map { ["-C", $0] } ?? []
        guard let head = git(place + ["rev-parse", "--short=9", "HEAD"]), !head.output.isEmpty, head.status == 0 else { return "unknown" }
        let clean = git(place + ["diff", "--quiet", "HEAD", "--"])?.status == 0
        return head.output + (clean ? "" : "-dirty")
    }

    private static func git(_ arguments: [String]) -> (output: String, status: Int32)? {
        let pipe = Pipe()
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        git.arguments = arguments
        git.standardOutput = pipe
        git.standardError = FileHandle.nullDevice
        guard (try? git.run()) != nil else { return nil }
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        git.waitUntilExit()
        return (text, git.terminationStatus)
    }
}
