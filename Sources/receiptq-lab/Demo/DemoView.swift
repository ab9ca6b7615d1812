import CommandSupport
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Postgres
import ReceiptQueue   // Duration.seconds

/// The demo's live terminal view: one line per second from the ops views until the queue is
/// drained, then a summary. Reads only what an operator could read with psql.
struct DemoView {
    let pool: PostgresPool
    let fakeStatsURL: String?

    static let lineSQL = """
        SELECT (SELECT coalesce(sum(jobs), 0) FROM receiptq.queue_depth WHERE state = 'queued')::bigint AS queued,
               (SELECT coalesce(sum(jobs), 0) FROM receiptq.queue_depth WHERE state = 'verifying')::bigint AS verifying,
               (SELECT coalesce(sum(jobs), 0) FROM receiptq.queue_depth WHERE state = 'timed_out')::bigint AS timed_out,
               (SELECT coalesce(sum(last_hour), 0) FROM receiptq.outcomes WHERE state = 'granted')::bigint AS granted,
               (SELECT coalesce(sum(last_hour), 0) FROM receiptq.outcomes WHERE state = 'already_granted')::bigint AS already,
               (SELECT coalesce(sum(last_hour), 0) FROM receiptq.outcomes WHERE state = 'rejected')::bigint AS rejected,
               (SELECT coalesce(sum(last_hour), 0) FROM receiptq.outcomes WHERE state = 'failed')::bigint AS failed,
               (SELECT coalesce(sum(last_hour), 0) FROM receiptq.outcomes WHERE state = 'resubmit')::bigint AS resubmit,
               -- open jobs Apple last answered 21002, in flight or not: they are retried (quickly at first,
               -- later every few minutes), so some are always verifying
               (SELECT count(*) FROM receiptq.jobs
                WHERE state IN ('queued', 'verifying', 'timed_out') AND apple_status = 21002)::bigint AS doubtful
        """

    /// Until nothing is open but receipts Apple keeps answering 21002 (retried for hours, never
    /// "not paid"), and `settled()` says the demo's app has nothing more to send.
    func watch(timeout: Duration, settled: @Sendable () async -> Bool) async throws {
        let started = ContinuousClock.now
        var lastFinished = 0
        print("   time   queued verifying timed_out │ granted already rejected resubmit failed │ finished/s")
        while true {
            let row = try await pool.query(Self.lineSQL)[0]
            func value(_ name: String) throws -> Int { try row.decode(name, as: Int.self) }
            let open = try value("queued") + value("verifying") + value("timed_out") - value("doubtful")
            let finished = try value("granted") + value("already") + value("rejected") + value("failed") + value("resubmit")
            let elapsed = Int((ContinuousClock.now - started).seconds)
            print(String(format: "%6ds  %7d %9d %9d │ %7d %7d %8d %8d %6d │ %6d",
                         elapsed, try value("queued"), try value("verifying"), try value("timed_out"),
                         try value("granted"), try value("already"), try value("rejected"), try value("resubmit"), try value("failed"),
                         finished - lastFinished))
            lastFinished = finished
            if open == 0 && finished > 0, await settled() { break }
            if ContinuousClock.now - started > timeout { throw ConfigurationError("the queue did not drain within \(timeout)") }
            try await Task.sleep(for: .seconds(1))
        }
        try await summary(seconds: (ContinuousClock.now - started).seconds)
    }

    func summary(seconds: Double) async throws {
        print("\nDrained in \(Int(seconds)) s. Verdicts (what the app was told), states and reasons:")
        for row in try await pool.query("""
            SELECT j.kind, j.state, receiptq.verdict(j.state, j.id, j.user_id, g.user_id, g.job_id, g.revoked_at) AS verdict,
                   -- one line per kind of reason, whatever transaction it names
                   regexp_replace(coalesce(CASE WHEN j.finished_at IS NULL THEN j.last_error ELSE j.outcome_reason END, ''),
                                  '[0-9]{6,}', 'N', 'g') AS reason,
                   count(*) AS jobs, count(j.superseded_by) AS superseded
            FROM receiptq.jobs j
            LEFT JOIN receiptq.grants g ON g.purchase_key = j.purchase_key
            GROUP BY 1, 2, 3, 4 ORDER BY 1, 5 DESC
            """) {
            let state = JobState(rawValue: row["state"] ?? "") ?? .queued
            let superseded = try row.decode("superseded", as: Int.self)
            let reason = String((row["reason"] ?? "").prefix(80))
            func column(_ text: String, _ width: Int) -> String { text.padding(toLength: max(width, text.count), withPad: " ", startingAt: 0) }
            let jobs = String(try row.decode("jobs", as: Int.self))
            print("  " + String(repeating: " ", count: max(0, 5 - jobs.count)) + jobs + "  " + column(row["kind"] ?? "", 19)
                  + column(row["verdict"] ?? "", 22) + column(state.rawValue, 16)
                  + reason + (superseded > 0 ? " (\(superseded) superseded by a resubmission)" : ""))
        }
        let grants = try await pool.query("""
            SELECT count(*) AS grants, count(*) FILTER (WHERE unmatched) AS unmatched,
                   count(*) FILTER (WHERE environment = 'Sandbox') AS sandbox,
                   count(*) FILTER (WHERE ownership_type = 'FAMILY_SHARED') AS family,
                   count(*) FILTER (WHERE app_account_token IS NOT NULL) AS tokened,
                   count(DISTINCT purchase_key) AS purchases FROM receiptq.grants
            """)[0]
        print("Grants: \(grants["grants"] ?? "0") (one per purchase: \(grants["purchases"] ?? "0") distinct), "
              + "\(grants["sandbox"] ?? "0") sandbox, \(grants["family"] ?? "0") family-shared, "
              + "\(grants["tokened"] ?? "0") carrying an appAccountToken, \(grants["unmatched"] ?? "0") without a matching order")
        // Refunds asked for at the end of the run: give their notifications a moment to apply.
        for _ in 0..<20 {
            let open: Int = try await pool.query(
                "SELECT count(*) AS n FROM receiptq.notifications WHERE state IN ('queued', 'applying')")[0].decode("n")
            if open == 0 { break }
            try await Task.sleep(for: .milliseconds(500))
        }
        let notifications = try await pool.query("""
            SELECT notification_type, source, count(*) AS received, count(*) FILTER (WHERE state = 'applied') AS applied
            FROM receiptq.notifications GROUP BY 1, 2 ORDER BY 1, 2
            """)
        if !notifications.isEmpty {
            let revoked: Int = try await pool.query("SELECT count(*) AS n FROM receiptq.grants WHERE revoked_at IS NOT NULL")[0].decode("n")
            print("Apple's notifications: " + notifications.map { row in
                "\(row["notification_type"] ?? "?") ×\(row["received"] ?? "0") (\(row["applied"] ?? "0") applied\(row["source"] == "history" ? ", from history" : ""))"
            }.joined(separator: ", ") + "; grants revoked by refunds: \(revoked)")
        }
        if let fakeStatsURL, let url = URL(string: fakeStatsURL), let (data, _) = try? await URLSession.shared.data(from: url),
           let stats = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let requests = stats["requests"] as? Int {
            print("Apple (fake) answered \(requests) requests.")
        }
    }
}
