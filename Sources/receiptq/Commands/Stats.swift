import ArgumentParser
import CommandSupport
import Foundation
import Postgres
import ReceiptQueue

/// `receiptq stats`: prints the ops views (the same ones ops query with psql); with `--watch`,
/// again every `--watch-interval` until interrupted, on one connection. A failed read while
/// watching (the database restarting) is reported on stderr and tried again next time.
struct Stats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print queue depth, health, recent outcomes and failures (once, or --watch).")

    @OptionGroup var database: DatabaseOptions

    @Flag(help: "Print JSON instead of tables (with --watch: one JSON object per line). Default: off.")
    var json = false

    @Flag(help: "Print again every --watch-interval until interrupted (Ctrl-C); on a terminal the screen is redrawn. Default: off.")
    var watch = false

    @Option(help: "How often --watch prints. Default: 5s.")
    var watchInterval: Duration?

    static let views = ["queue_depth", "queue_health", "outcomes", "failures"]

    func validate() throws {
        if let watchInterval, watchInterval < .milliseconds(100) { throw ValidationError("--watch-interval must be at least 100ms") }
    }

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.stats", defaultLevel: .error)
        let config = try database.configuration(applicationName: "receiptq-stats")
        let pool = PostgresPool(configuration: config, size: 1)
        defer { pool.shutdown() }
        guard watch else {
            print(try await render(read(pool)), terminator: "")
            return
        }
        let interval = watchInterval ?? .seconds(5)
        let redraw = !json && isatty(STDOUT_FILENO) == 1
        var first = true
        while !Task.isCancelled {
            do {
                var text = try await render(read(pool))
                if !json { text = "receiptq stats at \(Date().formatted(.iso8601)), every \(interval.argumentText)\n\n" + text }
                if redraw { text = "\u{1B}[H\u{1B}[2J" + text }
                FileHandle.standardOutput.write(Data(text.utf8))   // unbuffered: each round shows at once
            } catch where !first {
                FileHandle.standardError.write(Data("stats: \(error) (trying again in \(interval.argumentText))\n".utf8))
            }
            first = false
            try await Task.sleep(for: interval)
        }
    }

    private func read(_ pool: PostgresPool) async throws -> [(String, PostgresRows)] {
        try await pool.withConnection { connection in
            // View names are constants above, never input: safe to put in the statement text.
            try Stats.views.map { ($0, try connection.query("SELECT * FROM receiptq.\($0)")) }
        }
    }

    private func render(_ results: [(String, PostgresRows)]) throws -> String {
        if json {
            var object: [String: [[String: String?]]] = [:]
            for (name, rows) in results {
                object[name] = rows.map { row in
                    Dictionary(uniqueKeysWithValues: rows.columns.map { ($0, row[$0]) })
                }
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return String(decoding: try encoder.encode(object), as: UTF8.self) + "\n"
        }
        return results.map { name, rows in "receiptq.\(name)\n" + TextTable.render(rows) + "\n" }.joined()
    }
}

/// Plain aligned text tables for terminals.
enum TextTable {
    static func render(_ rows: PostgresRows) -> String {
        let cells = rows.map { row in rows.columns.map { row[$0] ?? "" } }
        var widths = rows.columns.map(\.count)
        for line in cells {
            for (index, cell) in line.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func format(_ line: [String]) -> String {
            zip(line, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
        }
        var lines = [format(rows.columns), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
        lines += cells.map(format)
        if cells.isEmpty { lines.append("(no rows)") }
        return lines.map { "  " + $0 }.joined(separator: "\n") + "\n"
    }
}
