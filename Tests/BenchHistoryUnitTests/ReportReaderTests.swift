import BenchHistory
import Testing

/// The reports below are real: printed by the benches of this commit (debug build, 2026-11-28).
/// A bench whose labels move fails here before its history, guards and comparisons go blind.
@Suite struct ReportReaderTests {
    static let queue = """
        bench queue: 20000 jobs, 4 claimers, batch 1000
          enqueue                          11819 jobs/s
          drain (claim + complete)         6202 jobs/s, PostgreSQL CPU 135 µs per job
          baseline (1-row UPDATE + commit) 573 jobs/s  (2000 jobs)
          drain / baseline                 10.8×
        """

    static let signed = """
        bench e2e --kind signed: 3000 StoreKit 2 signed transactions, 2 workers, offered 1000/s
          granted/s (first submission → last grant)  658 (4.7 s)
          time to grant p50 / p99                   1012.1 ms / 1928.1 ms
          worker CPU per transaction                0.977 ms
          JWS verification per transaction          0.357 ms CPU (36 % of the worker's)
          PostgreSQL CPU per transaction            0.950 ms
          whole machine CPU per transaction         3.083 ms → at most ~648/s on 2 cores
          peak RSS per worker                       68 MB, 64 MB
          outcomes                                  granted 3000
          goal (≥ 5,000/s carried, p99 ≤ 250 ms, ≤ 0.15 ms CPU each)  NOT met
        """

    static let receipts = """
        bench e2e: 3000 receipts, 2 workers × 200 in flight, fake Apple at 100ms-200ms
          receipts/s (enqueue → terminal)   249 overall (12.0 s), 278 steady (p10–p90 finishes)
          time to grant p50 / p99           5.79 s / 11.51 s
          peak RSS per worker               61 MB, 62 MB
          CPU per 1,000 verifications       2.93 s (workers only)
          PostgreSQL CPU per receipt        0.812 ms
          Apple requests                    3042
          outcomes                          granted 3000
        """

    static let notifications = """
        bench notifications: POST /v1/apple/notifications, signed REFUND notifications, API child
          group commit            182 accepted/s   p50 163.6 ms   p99 356.6 ms   max 466.7 ms   (559 accepted, 0 failed, mean batch 6.0; closed loop, 32 connections)
            CPU ms per notification: bench process 1.075, API child 3.685, PostgreSQL 0.429, whole machine 10.948
          one commit per request  162 accepted/s   p50 188.2 ms   p99 449.5 ms   max 473.7 ms   (509 accepted, 0 failed, mean batch 1.0; closed loop, 32 connections)
            CPU ms per notification: bench process 1.097, API child 4.008, PostgreSQL 1.120, whole machine 12.141
          group / baseline  1.1×
          applied by 2 receiptq worker processes: 187 applied/s (1068 of 1068 applied, 0 failed, in 5.7 s; CPU ms per notification: workers 3.923, PostgreSQL 1.489)
        """

    static let webhooks = """
        bench webhooks: 2 worker processes × 200 deliveries in flight, receiver on loopback checking signatures
          throughput   a backlog of 5000 events of 500 users (appended in 1.03 s, 500 a transaction, no worker running): 5000 acknowledged 10.92 s after the workers started, 457 events/s; 0 signatures refused
                       CPU ms per event: workers 0.904, PostgreSQL 0.894
          idle latency commit → acknowledged, 30 events one at a time: p50 14 ms, p99 104 ms, max 104 ms
        """

    @Test func queueReportGivesItsRatesItsDatabaseCostAndItsRatio() throws {
        let figures = try ReportReader.queue.read(Self.queue)
        #expect(figures == ["enqueue_per_s": 11819, "drain_per_s": 6202, "drain_postgres_cpu_ms": 0.135,
                            "baseline_per_s": 573, "drain_over_baseline": 10.8])
    }

    @Test func signedReportGivesCostsPerTransactionLatenciesAndTheLargestWorker() throws {
        let figures = try ReportReader.e2eSigned.read(Self.signed)
        #expect(figures["worker_cpu_ms"] == 0.977)
        #expect(figures["postgres_cpu_ms"] == 0.950)
        #expect(figures["machine_cpu_ms"] == 3.083)
        #expect(figures["grant_p50_wall_ms"] == 1012.1)
        #expect(figures["grant_p99_wall_ms"] == 1928.1)
        #expect(figures["granted_per_s"] == 658)
        #expect(figures["peak_rss_mb"] == 68)
    }

    @Test func receiptReportTurnsSecondsPerThousandAndSecondsOfLatencyIntoMilliseconds() throws {
        let figures = try ReportReader.e2eReceipts.read(Self.receipts)
        #expect(figures["worker_cpu_ms"] == 2.93)
        #expect(figures["postgres_cpu_ms"] == 0.812)
        #expect(figures["grant_p50_wall_ms"] == 5790)
        #expect(figures["grant_p99_wall_ms"] == 11510)
        #expect(figures["steady_receipts_per_s"] == 278)
        #expect(figures["receipts_per_s"] == 249)
        #expect(figures["peak_rss_mb"] == 62)
    }

    @Test func notificationReportReadsTheGroupCommitRunNotTheBaselineAndSumsTheApply() throws {
        let figures = try ReportReader.notifications.read(Self.notifications)
        #expect(figures["intake_per_s"] == 182)
        #expect(figures["intake_api_cpu_ms"] == 3.685)
        #expect(figures["intake_postgres_cpu_ms"] == 0.429)
        #expect(figures["intake_machine_cpu_ms"] == 10.948)
        #expect(figures["applied_per_s"] == 187)
        #expect(figures["apply_worker_cpu_ms"] == 3.923)
        #expect(figures["apply_postgres_cpu_ms"] == 1.489)
        #expect(abs((figures["apply_cpu_ms"] ?? 0) - 5.412) < 1e-9)
    }

    @Test func webhookReportGivesTheRateTheCostPerEventAndTheIdleLatency() throws {
        let figures = try ReportReader.webhooks.read(Self.webhooks)
        #expect(figures == ["delivered_per_s": 457, "deliver_worker_cpu_ms": 0.904, "deliver_postgres_cpu_ms": 0.894,
                            "idle_p50_wall_ms": 14, "idle_p99_wall_ms": 104])
    }

    @Test func aReportWithoutARequiredFigureIsAnErrorNamingIt() {
        let cut = Self.signed.replacingOccurrences(of: "worker CPU per transaction", with: "worker time")
        #expect(throws: HistoryError.self) { try ReportReader.e2eSigned.read(cut) }
        do {
            _ = try ReportReader.e2eSigned.read(cut)
        } catch {
            #expect("\(error)".contains("worker_cpu_ms"))
        }
    }

    @Test func anOptionalFigureMayBeMissingAsInAnOlderCommitsReport() throws {
        // Before issue 44 the receipt bench printed no PostgreSQL line, the webhook bench no CPU.
        let older = Self.receipts.split(separator: "\n").filter { !$0.contains("PostgreSQL CPU per receipt") }.joined(separator: "\n")
        #expect(try ReportReader.e2eReceipts.read(older)["postgres_cpu_ms"] == nil)
        #expect(try ReportReader.e2eReceipts.read(older)["worker_cpu_ms"] == 2.93)
    }

    @Test func everyGuardedFigureHasAUnitTheGuardCanCompareAcrossDays() {
        for reader in ReportReader.all {
            for name in reader.guardedNames {
                let kind = FigureKind(name: name)
                #expect(kind.ratioUnit != nil || kind == .megabytes || kind == .plain, "\(reader.bench).\(name)")
            }
            #expect(!reader.guardedNames.isEmpty, "\(reader.bench) guards nothing")
        }
    }

    @Test func benchesAreNamedOnce() {
        #expect(Set(ReportReader.all.map(\.bench)).count == ReportReader.all.count)
        #expect(ReportReader.named("e2e-signed")?.bench == "e2e-signed")
        #expect(ReportReader.named("nope") == nil)
    }
}
