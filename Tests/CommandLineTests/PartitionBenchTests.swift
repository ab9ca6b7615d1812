import Foundation
import ReceiptQueueTesting
import Testing

/// `receiptq-lab bench partitions` at a size that runs in seconds: its figures are the ones
/// docs/benchmarks.md quotes at 50 million rows, so they must add up at 20,000.
@Suite("bench partitions: jobs as one table vs. partitioned by day")
struct PartitionBenchTests {
    @Test func bothLayoutsHoldTheRowsTheClaimFindsTheQueueAndADropRemovesExactlyADay() async throws {
        let url = try #require(ProcessInfo.processInfo.environment["DATABASE_URL"], "run with ./Deploy/dev test")
        let run = try await ChildProcess.run(ReceiptQBinary.lab, arguments: [
            "bench", "partitions", "--rows", "20000", "--days", "3", "--queued", "0.01", "--repeat", "1", "--json", "--database-url", url,
        ], timeout: .seconds(120))
        #expect(run.status == 0, "bench said: \(run.stderr)")
        let outcome = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let layouts = try #require(outcome?["layouts"] as? [[String: Any]], "stdout: \(run.stdout)")
        #expect(layouts.map { $0["name"] as? String } == ["flat", "partitioned"])
        let perDay = 20_000 / 3
        for layout in layouts {
            let name = layout["name"] as? String ?? "?"
            #expect(layout["rows"] as? Int == 20_000, "\(name)")
            #expect(layout["partitions"] as? Int == (name == "flat" ? 0 : 5), "\(name): 3 days, today and tomorrow")
            // 200 queued + 20 verifying: the claim takes every queued one, none twice.
            #expect(layout["claimed"] as? Int == 200, "\(name)")
            let probes = layout["probes"] as? [[String: Any]] ?? []
            let claim = probes.first { ($0["name"] as? String)?.hasPrefix("claim") == true }
            #expect(claim?["rows"] as? Int == 100, "\(name): one claim of --claim-limit")
            let prune = layout["prune"] as? [String: Any] ?? [:]
            if name == "flat" {
                #expect(prune["deleted_rows"] as? Int == perDay, "the scheduler's DELETE prunes the first day, all finished")
                #expect(prune["detach"] == nil)
            } else {
                let detach = try #require(prune["detach"] as? [String: Any])
                #expect(detach["partition"] as? String == Self.partition(daysAgo: 3), "the oldest day's partition")
                #expect(detach["removed_rows"] as? Int == perDay, "DETACH + DROP removes the first day, no more, no less")
                // 8 % rejected, 2 % owned_elsewhere, 2 % failed by the load's mix: about 12 %.
                let retained = detach["retained_rows"] as? Int ?? 0
                #expect(retained > perDay / 12 && retained < perDay / 6)
                #expect(prune["deleted_rows"] as? Int == perDay, "then the DELETE prunes the second day, all finished")
                let depth = probes.first { $0["name"] as? String == "queue_depth" }
                #expect((depth?["partitions_scanned"] as? Int ?? 0) > 0)
            }
        }
        let changed = (outcome?["changed_constraints"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(changed == ["jobs_pkey"], "the dedupe keys live in tables of their own (0033, 0034): only the primary key takes the partition key")
    }

    /// The partition of the day (UTC) `days` before today: `jobs_p20261123`.
    static func partition(daysAgo days: Int) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let day = calendar.date(byAdding: .day, value: -days, to: Date())!
        let parts = calendar.dateComponents([.year, .month, .day], from: day)
        return String(format: "jobs_p%04d%02d%02d", parts.year!, parts.month!, parts.day!)
    }
}
