import Foundation
import Postgres

/// The overview's charts over the last hour (per minute) or day (per 15 min), read from the tables
/// the product already keeps — no rollup, no Prometheus. Each query reads a bounded range of an
/// existing index:
/// - jobs: `jobs_finished_idx` (finished_at ≥ the window's start) for verdicts, plus the unfinished
///   jobs through the partial indexes of queued, verifying and timed-out jobs. Queue depth at the end
///   of each interval is then exact without reading older history: a job waiting at a moment in the
///   window is unfinished now or finished since; depth(t) = those created before t − those finished
///   before t (a running sum).
/// - notifications: `notifications_received_idx` (received_at ≥ the start), by what became of them.
/// Measured on 1M jobs all finished in the last 24 h (docs/console.md): the hour ~0.5 s, the day
/// ~3.3 s, so the day view is not refreshed live.
/// Calls out (Apple's latency and failures, the breakers, webhook deliveries) come from the
/// per-minute sums the workers keep (`ConsoleCallCharts`): a delivery's own rows have no index on
/// time alone, and latency and breakers exist only in the worker.
enum ConsoleCharts {
    enum Window: String, Sendable, CaseIterable {
        case hour, day
        var span: String { self == .hour ? "1 hour" : "1 day" }
        var step: String { self == .hour ? "1 minute" : "15 minutes" }
        var words: String { self == .hour ? "the last hour, per minute (UTC)" : "the last day, per 15 minutes (UTC)" }
    }

    /// Intervals `[start, start + step)` ending with the current one, labelled by their start (UTC).
    static func buckets(_ window: Window) -> String {
        """
        SELECT at, to_char(at AT TIME ZONE 'UTC', 'HH24:MI') AS label
        FROM generate_series(date_bin('\(window.step)', now() - interval '\(window.span)', timestamptz '2000-01-01') + interval '\(window.step)',
                             date_bin('\(window.step)', now(), timestamptz '2000-01-01'), interval '\(window.step)') at
        """
    }

    static func jobs(_ window: Window) -> String {
        ConsoleQueries.rows("""
            WITH b AS (\(buckets(window))),
            s AS (
                SELECT created_at, finished_at, state FROM receiptq.jobs
                WHERE state IN ('granted', 'already_granted', 'rejected', 'failed', 'resubmit', 'owned_elsewhere')
                  AND finished_at >= (SELECT min(at) FROM b)
                UNION ALL
                SELECT created_at, NULL, state FROM receiptq.jobs WHERE state = 'queued'
                UNION ALL
                SELECT created_at, NULL, state FROM receiptq.jobs WHERE state = 'verifying'
                UNION ALL
                SELECT created_at, NULL, state FROM receiptq.jobs WHERE state = 'timed_out'
            ),
            moves AS (
                SELECT greatest(date_bin('\(window.step)', created_at, timestamptz '2000-01-01'), (SELECT min(at) FROM b)) AS at, 1 AS d FROM s
                UNION ALL
                SELECT date_bin('\(window.step)', finished_at, timestamptz '2000-01-01'), -1 FROM s WHERE finished_at IS NOT NULL
            ),
            per AS (SELECT at, sum(d) AS d FROM moves GROUP BY at),
            v AS (
                SELECT date_bin('\(window.step)', finished_at, timestamptz '2000-01-01') AS at,
                       count(*) FILTER (WHERE state IN ('granted', 'already_granted')) AS granted,
                       count(*) FILTER (WHERE state = 'rejected') AS rejected,
                       count(*) FILTER (WHERE state = 'failed') AS failed,
                       count(*) FILTER (WHERE state IN ('resubmit', 'owned_elsewhere')) AS other
                FROM s WHERE finished_at IS NOT NULL GROUP BY 1
            )
            SELECT b.label, (sum(coalesce(per.d, 0)) OVER (ORDER BY b.at))::bigint AS depth,
                   coalesce(v.granted, 0) AS granted, coalesce(v.rejected, 0) AS rejected,
                   coalesce(v.failed, 0) AS failed, coalesce(v.other, 0) AS other
            FROM b LEFT JOIN per ON per.at = b.at LEFT JOIN v ON v.at = b.at
            ORDER BY b.at
            """)
    }

    static func notifications(_ window: Window) -> String {
        ConsoleQueries.rows("""
            WITH b AS (\(buckets(window))),
            n AS (
                SELECT date_bin('\(window.step)', received_at, timestamptz '2000-01-01') AS at,
                       count(*) FILTER (WHERE state = 'applied') AS applied,
                       count(*) FILTER (WHERE state IN ('queued', 'applying')) AS open,
                       count(*) FILTER (WHERE state IN ('failed', 'quarantined')) AS troubled
                FROM receiptq.notifications WHERE received_at >= (SELECT min(at) FROM b) GROUP BY 1
            )
            SELECT b.label, coalesce(n.applied, 0) AS applied, coalesce(n.open, 0) AS open, coalesce(n.troubled, 0) AS troubled
            FROM b LEFT JOIN n ON n.at = b.at ORDER BY b.at
            """)
    }

    static func int(_ value: Any?) -> Int { Int(ConsoleHTML.text(value)) ?? 0 }

    static func series(_ rows: [[String: Any]], _ keys: [(String, String)]) -> [ConsoleChart.Series] {
        keys.map { key, name in ConsoleChart.Series(name: name, values: rows.map { int($0[key]) }) }
    }

    static func labels(_ rows: [[String: Any]]) -> [String] { rows.map { ConsoleHTML.text($0["label"]) } }

    /// The three charts from the two queries' rows.
    static func charts(jobs: [[String: Any]], notifications: [[String: Any]], window: Window) -> [ConsoleChart] {
        [
            ConsoleChart(id: "queue-depth-\(window.rawValue)", title: "Jobs waiting (queued, verifying or timed out), \(window.words)",
                         description: "Jobs not yet finished at the end of each interval",
                         labels: labels(jobs), series: series(jobs, [("depth", "waiting")])),
            ConsoleChart(id: "verdicts-\(window.rawValue)", title: "Verdicts, \(window.words)",
                         description: "Jobs finished in each interval, by verdict",
                         labels: labels(jobs),
                         series: series(jobs, [("granted", "granted"), ("rejected", "rejected"), ("failed", "failed"),
                                               ("other", "resubmit or owned elsewhere")])),
            ConsoleChart(id: "notifications-\(window.rawValue)", title: "Notifications received, \(window.words)",
                         description: "App Store notifications received in each interval, by what became of them",
                         labels: labels(notifications),
                         series: series(notifications, [("applied", "applied"), ("open", "still open"), ("troubled", "failed or quarantined")])),
        ]
    }

    static func read(_ window: Window, on pool: PostgresPool) async throws -> [ConsoleChart] {
        let jobs = try await ConsoleQueries.run(Self.jobs(window), on: pool)
        let notifications = try await ConsoleQueries.run(Self.notifications(window), on: pool)
        return charts(jobs: jobs, notifications: notifications, window: window) + (try await ConsoleCallCharts.read(window, on: pool))
    }

    /// The overview's chart section: a switch between the hour and the day, and the charts.
    static func section(_ charts: [ConsoleChart], window: Window) -> String {
        let other: Window = window == .hour ? .day : .hour
        let note = window == .day ? " This view does not refresh itself (a day of jobs is costly to count every 5 s): reload it." : ""
        return "<p class=\"chart-window\">Charts: \(window.words).\(note) <a href=\"/console?window=\(other.rawValue)\">Show \(other.words)</a></p>"
            + "<div class=\"charts\">" + charts.map(\.html).joined() + "</div>"
    }
}
