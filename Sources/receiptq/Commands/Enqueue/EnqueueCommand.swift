import ArgumentParser
import CommandSupport
import Foundation
import Postgres
import ReceiptQueue

/// `receiptq enqueue --file receipts.jsonl`: backfills and tests. One JSON object per line:
/// `{"receipt_data": "...", "transaction_id": "...", "user_id": "...", "product_id": "...", "order_id": "..."}`.
/// The file is streamed (`LineReader`): good lines are committed in batches as they come, with
/// progress on stderr; a bad line is reported by its number, nothing of it stored, and the rest
/// go on. Exit status 65 (EX_DATAERR) when any line was bad, after the good ones are stored.
struct EnqueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enqueue", abstract: "Enqueue receipts from a JSON-lines file (or - for standard input), streamed; bad lines are reported by number and skipped.")

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

    /// EX_DATAERR: some input lines were not receipts (the others are stored).
    static let badInput = ExitCode(65)

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
        let pool = PostgresPool(configuration: try database.configuration(applicationName: "receiptq-enqueue"), size: 1)
        defer { pool.shutdown() }
        let queue = JobQueue(pool: pool)
        let batchSize = batch ?? 1000
        var reader = LineReader(handle)
        var tally = EnqueueTally()
        var pending: [NewJob] = []
        var progress = Progress()
        let decoder = JSONDecoder()

        func flush() async throws {
            guard !pending.isEmpty else { return }
            do {
                for result in try await queue.enqueue(pending) {
                    if result.created { tally.created += 1 } else { tally.existing += 1 }
                }
            } catch {
                progress.finish()
                Self.note("enqueue: stopped at line \(tally.lines): the \(tally.created + tally.existing) receipts before this batch are stored")
                throw error
            }
            pending.removeAll(keepingCapacity: true)
            progress.show(tally)
        }

        while let line = try reader.next() {
            tally.lines += 1
            let number = tally.lines
            switch line {
            case .tooLong:
                tally.bad(line: number)
                Self.note("line \(number): longer than 4 MiB, not stored", progress: &progress)
            case .text(let data):
                guard !data.allSatisfy({ $0 == 32 || $0 == 13 || $0 == 9 }) else { continue }
                do {
                    let parsed = try decoder.decode(Line.self, from: data)
                    pending.append(NewJob(receiptData: parsed.receipt_data, transactionID: parsed.transaction_id, userID: parsed.user_id,
                                          productID: parsed.product_id, orderID: parsed.order_id))
                } catch {
                    tally.bad(line: number)
                    Self.note("line \(number): not a receipt object (need receipt_data, transaction_id, user_id), not stored",
                              progress: &progress)
                }
            }
            if pending.count >= batchSize { try await flush() }
        }
        try await flush()
        progress.finish()
        print(tally.summary)
        if tally.badLines > 0 { throw Self.badInput }
    }

    static func note(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    static func note(_ message: String, progress: inout Progress) {
        progress.clear()
        note(message)
    }

    /// The progress line on stderr: rewritten in place on a terminal, else one line at most a
    /// second (a log collector gets a readable trail, not a flood).
    struct Progress {
        private let isTerminal = isatty(STDERR_FILENO) == 1
        private var last: ContinuousClock.Instant?
        private var shown = false

        mutating func show(_ tally: EnqueueTally) {
            let now = ContinuousClock.now
            if let last, now - last < .seconds(1) { return }
            last = now
            write(tally.progress)
        }

        mutating func clear() {
            guard isTerminal, shown else { return }
            FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
            shown = false
        }

        mutating func finish() {
            guard isTerminal, shown else { return }
            FileHandle.standardError.write(Data("\n".utf8))
            shown = false
        }

        private mutating func write(_ text: String) {
            if isTerminal {
                FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
                shown = true
            } else {
                FileHandle.standardError.write(Data((text + "\n").utf8))
            }
        }
    }
}
