import Foundation
@testable import Support
import Testing

/// How the console lays out a table: its spec's columns in order under their labels, each value
/// written by its kind, everything from the row escaped (pure: no database).
@Suite("Console tables: chosen columns, readable labels, formatted and escaped cells")
struct ConsoleTableTests {
    static let now = Date(timeIntervalSince1970: 1_795_686_482)   // 2026-11-26 09:48:02 UTC

    static func rows(_ json: String) -> [[String: Any]] { ConsoleHTML.rows(json) }

    @Test func columnsComeInTheSpecsOrderUnderTheirLabelsAndOtherKeysAreNotShown() throws {
        let html = ConsoleHTML.table(Self.rows(#"[{"state": "queued", "jobs": 12345, "ready": 1, "delayed": 0, "secret": "x"}]"#),
                                     ConsoleTables.queueDepth, id: "queue-depth", now: Self.now)
        let headings = html.components(separatedBy: "<th ").dropFirst().map { String($0.split(separator: ">", maxSplits: 1)[1].prefix { $0 != "<" }) }
        #expect(headings == ["State", "Jobs", "Ready", "Delayed"])
        #expect(html.contains("<td class=\"k-number\">12,345</td>"))
        #expect(html.contains("<span class=\"badge state-queued\">queued</span>"))
        #expect(!html.contains("secret") && !html.contains("delayed</th>"))
        #expect(html.hasPrefix("<div class=\"scroll\"><table id=\"queue-depth\">"))
        #expect(html.contains("title=\"queued or timed out: due now; verifying: lease still held\""), "a heading's help is its title")
    }

    @Test func timesAreRelativeWithTheExactUTCTimeAsTitle() {
        let html = ConsoleHTML.table(Self.rows(#"[{"last_seen": "2026-11-26T09:47:41.907818+00:00", "reason": "HTTP 503", "jobs": 3}]"#),
                                     ConsoleTables.failureSummary, now: Self.now)
        #expect(html.contains("<time datetime=\"2026-11-26T09:47:41.907Z\" title=\"2026-11-26 09:47:41 UTC\">20 s ago</time>"), "\(html)")
        #expect(html.contains("<td class=\"k-time\">"))
    }

    @Test func intervalsPercentagesCodesFlagsListsAndLinksAreWrittenByKind() {
        let health = ConsoleHTML.table(Self.rows(#"[{"oldest_ready_age": 200.5, "failure_rate_last_hour": 0.5, "notify_queue_usage": 0}]"#),
                                       ConsoleTables.queueHealth, now: Self.now)
        #expect(health.contains(">3 min</td>") && health.contains(">50%</td>") && health.contains(">0%</td>"))
        let failures = ConsoleHTML.table(Self.rows(#"[{"id": 42, "apple_status": 21002, "user_id": "ann smith", "state": "failed"}]"#),
                                         ConsoleTables.failures, now: Self.now)
        #expect(failures.contains(">21002</td>"), "a code is never grouped")
        #expect(failures.contains("<a href=\"/console/jobs/42\">42</a>") && failures.contains("<a href=\"/console/customers/ann%20smith\">ann smith</a>"))
        let workers = ConsoleHTML.table(Self.rows(#"[{"worker": "w1", "live": true}, {"worker": "w2", "live": false}]"#), ConsoleTables.workers, now: Self.now)
        #expect(workers.contains("<span class=\"badge state-live\">live</span>") && workers.contains("<span class=\"badge state-silent\">silent</span>"))
        let endpoints = ConsoleHTML.table(Self.rows(#"[{"id": "e1", "event_types": ["purchase.granted", "purchase.revoked"]}]"#),
                                          ConsoleTables.endpoints, now: Self.now)
        #expect(endpoints.contains(">purchase.granted, purchase.revoked</td>"))
        let audit = ConsoleHTML.table(Self.rows(#"[{"subject": "job:7"}, {"subject": "original_transaction:t 1"}, {"subject": "fleet"}]"#),
                                      ConsoleTables.audit, now: Self.now)
        #expect(audit.contains("<a href=\"/console/jobs/7\">job:7</a>") && audit.contains("<a href=\"/console/purchases/t%201\">original_transaction:t 1</a>")
                && audit.contains(">fleet</td>"))
        let manual = ConsoleHTML.table(Self.rows(#"[{"job_id": -3, "purchase_key": "manual:T-1"}]"#), ConsoleStoryTables.customerGrants, now: Self.now)
        #expect(manual.contains(">-3</td>"), "a manual grant has no job to link to")
    }

    @Test func everyValueFromARowIsEscapedWhateverItsKind() {
        let evil = "<script>alert(1)</script>\"'&"
        let row = ["state": evil, "jobs": evil, "reason": evil, "last_seen": evil, "apple_status": evil]
        let html = ConsoleHTML.table([row], ConsoleTables.failureSummary, now: Self.now)
        #expect(!html.contains("<script>") && !html.contains("alert(1)</script>"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;"))
        #expect(html.contains("class=\"badge state-scriptalert1script\""), "a badge's class keeps letters and digits only")
        let linked = ConsoleHTML.table([["user_id": "\"><img src=x>"]], ConsoleTables.failedDeliveries, now: Self.now)
        #expect(linked.contains("href=\"/console/customers/%22%3E%3Cimg%20src%3Dx%3E\"") && linked.contains(">&quot;&gt;&lt;img src=x&gt;</a>"))
    }

    @Test func nullsAreEmptyCellsAndNoRowsSayNone() {
        #expect(ConsoleHTML.table([], ConsoleTables.queueDepth, now: Self.now) == "<p class=\"empty\">none</p>")
        let html = ConsoleHTML.table(Self.rows(#"[{"state": null, "jobs": null}]"#), ConsoleTables.queueDepth, now: Self.now)
        #expect(html.contains("<td class=\"k-state\"></td><td class=\"k-number\"></td>"))
    }

    @Test func aRecordReadsAsLabelledLinesInTheSpecsOrder() {
        let html = ConsoleHTML.fields(["state": "queued", "user_id": "cust-1", "trusted_claim": false, "id": 9], ConsoleStoryTables.job, id: "job", now: Self.now)
        #expect(html.contains("<table class=\"fields\" id=\"job\">"))
        let state = html.range(of: ">State</th>")!, customer = html.range(of: ">Customer</th>")!, id = html.range(of: ">Job</th>")!
        #expect(state.lowerBound < customer.lowerBound && customer.lowerBound < id.lowerBound)
        #expect(html.contains("<span class=\"badge state-no\">no</span>"))
        #expect(!html.contains(">Order</th>") && !html.contains(">Lease ends</th>"), "a field the job does not fill is left out")
    }

    @Test func aSparseTableLeavesOutTheColumnsNoRowFills() {
        let rows = Self.rows(#"[{"id": 1, "state": "granted", "apple_status": null}, {"id": 2, "state": "failed", "order_id": ""}]"#)
        let sparse = ConsoleHTML.table(rows, ConsoleStoryTables.searchJobs, now: Self.now, sparse: true)
        #expect(sparse.contains(">Job</th>") && sparse.contains(">State</th>") && !sparse.contains(">Order</th>") && !sparse.contains(">Customer</th>"))
        let full = ConsoleHTML.table(rows, ConsoleStoryTables.searchJobs, now: Self.now)
        #expect(full.contains(">Order</th>") && full.contains(">Customer</th>"), "figures keep every column")
    }

    @Test func oneRowOfFiguresIsTilesAndAFewRowsCanStandSideBySide() {
        let tiles = ConsoleHTML.figures(["ready": 1234, "failure_rate_last_hour": 0.5], ConsoleTables.queueHealth, id: "queue-health", now: Self.now)
        #expect(tiles.hasPrefix("<dl class=\"figures\" id=\"queue-health\">"))
        #expect(tiles.contains("<dt>Ready</dt><dd class=\"k-number\">1,234</dd>") && tiles.contains("<dd class=\"k-number\">50%</dd>"))
        #expect(tiles.contains("<dt title=\"how long the oldest job due now has waited\">Oldest ready</dt><dd class=\"k-number\">–</dd>"))
        let sides = ConsoleHTML.transposed(Self.rows(#"[{"environment": "Production", "open": 2}, {"environment": "Sandbox", "open": 1000}]"#),
                                           ConsoleTables.notificationHealth, now: Self.now)
        #expect(sides.contains("<thead><tr><th scope=\"col\">Environment</th><th scope=\"col\" class=\"k-text\">Production</th><th scope=\"col\" class=\"k-text\">Sandbox</th></tr></thead>"))
        #expect(sides.contains("<tr><th scope=\"row\">Open</th><td class=\"k-number\">2</td><td class=\"k-number\">1,000</td></tr>"))
    }

    @Test func anObjectReadsAsKeyValueLinesFoldedWhenLong() {
        let small = ConsoleHTML.cell(Self.rows(#"[{"v": {"paused": true, "reason": null}}]"#)[0]["v"], .json, now: Self.now)
        #expect(small == "<code><span class=\"json-key\">paused</span>: true</code>")
        let grant = Self.rows(#"[{"v": {"a": 1, "b": "<b>", "c": 3, "d": 4, "granted_at": "2026-11-26T09:47:41.9+00:00"}}]"#)[0]["v"]
        let long = ConsoleHTML.cell(grant, .json, now: Self.now)
        #expect(long.hasPrefix("<details><summary>5 fields</summary><code>") && long.contains(": &lt;b&gt;<br>"))
        #expect(long.contains("granted_at</span>: 2026-11-26 09:47:41 UTC"))
    }

    @Test func everySpecNamesEachKeyOnceUnderALabel() {
        let specs: [[ConsoleColumn]] = [
            ConsoleTables.queueDepth, ConsoleTables.queueHealth, ConsoleTables.failureSummary, ConsoleTables.notificationHealth,
            ConsoleTables.webhookHealth, ConsoleTables.consumption, ConsoleTables.workers, ConsoleTables.endpoints, ConsoleTables.failedDeliveries,
            ConsoleTables.troubledNotifications, ConsoleTables.rateBudget, ConsoleTables.failures, ConsoleTables.audit,
            ConsoleStoryTables.grants, ConsoleStoryTables.entitlements, ConsoleStoryTables.subscriptions, ConsoleStoryTables.orders,
            ConsoleStoryTables.jobs, ConsoleStoryTables.notifications, ConsoleStoryTables.deliveries, ConsoleStoryTables.audit,
            ConsoleStoryTables.ledgerGrants, ConsoleStoryTables.searchJobs, ConsoleStoryTables.searchOrders, ConsoleStoryTables.appleTransactions,
            ConsoleStoryTables.job, ConsoleStoryTables.jobGrant, ConsoleStoryTables.jobEvents, ConsoleStoryTables.jobDeliveries,
        ]
        for spec in specs {
            #expect(Set(spec.map(\.key)).count == spec.count, "\(spec.map(\.key))")
            #expect(spec.allSatisfy { !$0.label.isEmpty && !$0.label.contains("_") }, "\(spec.map(\.label))")
        }
    }
}
