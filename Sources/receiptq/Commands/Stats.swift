import ArgumentParser
import CommandSupport
import Foundation
import Postgres
import ReceiptQueue

/// `receiptq stats`: prints the ops views (the same ones ops query with psql).
struct Stats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print queue depth, health, recent outcomes and failures.")

    @OptionGroup var database: DatabaseOptions

    @Flag(help: "Print JSON instead of tables. Default: off.")
    var json = false

    static let views = ["queue_depth", "queue_health", "outcomes", "failures"]

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.stats", defaultLevel: .error)
        let config = try database.configuration(applicationName: "receiptq-stats")
        let pool = PostgresPool(configuration: config, size: 1)
        defer { pool.shutdown() }
        let results = try await pool.withConnection { connection in
            // View names are constants above, never input: safe to put in the statement text.
            try Stats.views.map { ($0, try connection.query("SELECT * FROM receiptq.\($0)")) }
        }
        if json {
            var object: [String: [[String: String?]]] = [:]
            for (name, rows) in results {
                object[name] = rows.map { row in
                    Dictionary(uniqueKeysWithValues: rows.columns.map { ($0, row[$0]) })
                }
            }
            let data = try JSONEncoder().encode(object)
            print(String(decoding: data, as: UTF8.self))
            return
        }
        for (name, rows) in results {
            print("receiptq.\(name)")
            print(TextTable.render(rows))
        }
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
