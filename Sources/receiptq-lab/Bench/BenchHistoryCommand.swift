import ArgumentParser
import BenchHistory
import Foundation

/// `receiptq-lab bench history`: the benchmark history as markdown tables (docs/benchmarks.md's
/// "History" section is this output; `./Deploy/dev bench-history` puts it there).
struct BenchHistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Print the benchmark history (JSON lines written by --record) as markdown tables.")

    @Option(help: "The history file.") var file = "docs/bench-results.jsonl"

    func run() throws {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw ValidationError("--file: cannot read \(file)")
        }
        do {
            print(HistoryTables.markdown(try BenchRecord.parse(history: text)), terminator: "")
        } catch let error as HistoryError {
            throw ValidationError("--file \(file): \(error)")
        }
    }
}
