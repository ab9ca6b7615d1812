import ArgumentParser
import CommandSupport
import Foundation
import Postgres
import ReceiptQueue

/// `receiptq enqueue --file receipts.jsonl`: backfills and tests. One JSON object per line:
/// `{"receipt_data": "...", "transaction_id": "...", "user_id": "...", "product_id": "...", "order_id": "..."}`.
/// Lines are committed in batches; a bad line is reported with its number and nothing of it stored.
struct EnqueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enqueue", abstract: "Enqueue receipts from a JSON-lines file (or - for standard input).")

    @OptionGroup var database: DatabaseOptions

    @Option(help: "JSON-lines file of receipts; - reads standard input.")
    var file: String

    @Option(help: "Receipts per statement and commit. Default: 1000.")
    var batch: Int?

    struct Line: Decodable {
        var receipt_data: String
        var transaction_id: String
        var user_id: String
        var product_id: String?
        var order_id: String?
    }

    func validate() throws {
        guard (1...10_000).contains(batch ?? 1000) else { throw ValidationError("--batch must be 1…10000") }
    }

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.enqueue", defaultLevel: .error)
        let handle: FileHandle
        if file == "-" {
            handle = .standardInput
        } else {
            guard let opened = FileHandle(forReadingAtPath: file) else { throw ConfigurationError("--file: cannot open \(file)") }
            handle = opened
        }
        let data = handle.readDataToEndOfFile()
        let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        var jobs: [NewJob] = []
        let decoder = JSONDecoder()
        for (index, line) in lines.enumerated() where !line.allSatisfy({ $0 == 32 || $0 == 13 || $0 == 9 }) {
            do {
                let parsed = try decoder.decode(Line.self, from: Data(line))
                jobs.append(NewJob(receiptData: parsed.receipt_data, transactionID: parsed.transaction_id, userID: parsed.user_id,
                                   productID: parsed.product_id, orderID: parsed.order_id))
            } catch {
                throw ConfigurationError("--file line \(index + 1): not a receipt object (need receipt_data, transaction_id, user_id)")
            }
        }
        let pool = PostgresPool(configuration: try database.configuration(applicationName: "receiptq-enqueue"), size: 1)
        defer { pool.shutdown() }
        let queue = JobQueue(pool: pool)
        let batch = self.batch ?? 1000
        var created = 0, existing = 0
        for start in stride(from: 0, to: jobs.count, by: batch) {
            for result in try await queue.enqueue(Array(jobs[start..<min(start + batch, jobs.count)])) {
                if result.created { created += 1 } else { existing += 1 }
            }
        }
        print("enqueued \(created) new, \(existing) already submitted (same receipt and transaction)")
    }
}
