import Foundation
import Postgres
import PostgresTesting
import ReceiptQueueTesting
import Testing

@Suite("enqueue streams and skips bad lines; stats --watch repeats")
struct EnqueueAndWatchTests {
    static func line(_ transaction: String, receipt: String = "MIIB-test-receipt") -> String {
        #"{"receipt_data":"\#(receipt)","transaction_id":"\#(transaction)","user_id":"u-\#(transaction)"}"#
    }

    @Test func badLinesAreReportedByNumberAndTheGoodOnesAroundThemAreStored() async throws {
        let database = try await ScratchDatabase.migrated(purpose: "enqueue")
        let run = UUID().uuidString.prefix(8)
        let lines = [
            Self.line("\(run)-1"),                                                      // 1 good
            "not json at all",                                                          // 2 bad
            Self.line("\(run)-3"),                                                      // 3 good
            #"{"receipt_data":"DO-NOT-PRINT-THIS-RECEIPT"}"#,                           // 4 bad: no transaction or user
            "",                                                                         // 5 blank: skipped, not bad
            Self.line("\(run)-1"),                                                      // 6 the same as line 1: already submitted
            #"{"receipt_data":""# + String(repeating: "A", count: 5 << 20) + #"","transaction_id":"x","user_id":"y"}"#,  // 7 over 4 MiB
            Self.line("\(run)-8"),                                                      // 8 good, after the long one
        ]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("enqueue-\(run).jsonl")
        try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }

        let result = try await ChildProcess.run(arguments: ["enqueue", "--file", file.path, "--batch", "2",
                                                            "--database-url", database.connectionString], timeout: .seconds(60))
        #expect(result.status == 65, "EX_DATAERR when any line was bad: \(result.stderr)")
        #expect(result.stdout.contains("enqueued 3 new, 1 already submitted"), "\(result.stdout)")
        #expect(result.stdout.contains("3 bad lines not stored (line 2, 4, 7)"), "\(result.stdout)")
        for number in [2, 4, 7] { #expect(result.stderr.contains("line \(number): "), "\(result.stderr)") }
        #expect(result.stderr.contains("lines read"), "progress on stderr: \(result.stderr)")
        #expect(!(result.stdout + result.stderr).contains("DO-NOT-PRINT"), "a line's content is never printed")
        let pool = database.pool(size: 1)
        let stored = try await pool.query("SELECT count(*)::int AS n FROM receiptq.jobs WHERE transaction_id LIKE $1", ["\(run)-%"])
        #expect(try stored[0].decode("n", as: Int.self) == 3)
        pool.shutdown()
        await database.drop()
    }

    @Test func aFileOfGoodLinesExitsZero() async throws {
        let database = try await ScratchDatabase.migrated(purpose: "enqueue")
        let run = UUID().uuidString.prefix(8)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("enqueue-\(run).jsonl")
        try (1...25).map { Self.line("\(run)-\($0)") }.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await ChildProcess.run(arguments: ["enqueue", "--file", file.path, "--batch", "10",
                                                            "--database-url", database.connectionString], timeout: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("enqueued 25 new, 0 already submitted"), "\(result.stdout)")
        await database.drop()
    }

    @Test func statsWatchPrintsAgainEveryIntervalUntilStopped() async throws {
        let database = try await ScratchDatabase.migrated(purpose: "watch")
        let child = try ChildProcess(arguments: ["stats", "--json", "--watch", "--watch-interval", "200ms",
                                                 "--database-url", database.connectionString])
        _ = await eventually(timeout: .seconds(15)) { child.stdout.split(separator: "\n").count >= 3 }
        child.kill(SIGTERM)
        await child.wait(timeout: .seconds(5))
        let objects = child.stdout.split(separator: "\n")
        #expect(objects.count >= 3, "\(child.stdout) \(child.stderr)")
        for object in objects {
            let parsed = try JSONSerialization.jsonObject(with: Data(object.utf8)) as? [String: Any]
            #expect(parsed?["queue_depth"] != nil, "one JSON object per line: \(object.prefix(200))")
        }
        await database.drop()
    }
}
