import BenchHistory
import Testing

@Suite struct YardstickTests {
    let yardstick = Yardstick(p256Microseconds: 80, commitMicroseconds: 4000)

    @Test(arguments: [
        ("worker_cpu_ms", FigureKind.cpuMilliseconds, true),
        ("grant_p99_wall_ms", .wallMilliseconds, true),
        ("drain_per_s", .perSecond, false),
        ("peak_rss_mb", .megabytes, true),
        ("drain_over_baseline", .plain, false),
    ])
    func aFiguresNameSaysItsKindAndWhichWayIsBetter(name: String, kind: FigureKind, lowerIsBetter: Bool) {
        #expect(FigureKind(name: name) == kind)
        #expect(kind.lowerIsBetter == lowerIsBetter)
    }

    @Test func cpuCountsInVerificationsWallTimeInCommitsAndARateInOneConnectionsCommits() {
        #expect(yardstick.ratio(0.8, kind: .cpuMilliseconds) == 10)         // 800 µs = 10 × 80 µs
        #expect(yardstick.ratio(40, kind: .wallMilliseconds) == 10)         // 40 ms = 10 × 4 ms
        #expect(yardstick.ratio(2500, kind: .perSecond) == 10)              // 2,500/s against 250 commits/s
        #expect(yardstick.ratio(150, kind: .megabytes) == nil)
        #expect(yardstick.ratio(6, kind: .plain) == nil)
    }

    @Test func measuredBeforeAndAfterTheRunKeepsTheFasterAndWidensTheSpread() {
        let before = Yardstick(p256Microseconds: 80, commitMicroseconds: 4000, p256Spread: 1.1, commitSpread: 1.2)
        let after = Yardstick(p256Microseconds: 125, commitMicroseconds: 4000, p256Spread: 1.05, commitSpread: 1.3)
        let run = Yardstick.bracketing(before: before, after: after)
        #expect(run.p256Microseconds == 80)                                 // the machine's speed: other work only adds
        #expect(run.commitMicroseconds == 4000)
        #expect(run.p256Spread == 125.0 / 80)                               // before against after is the widest
        #expect(run.commitSpread == 1.3)                                    // a run's own spread is the widest
    }

    @Test func theFastestRunIsTheMachinesSpeedWhateverModeTheMedianLandsIn() {
        // Bimodal, as P-256 is on this machine: three slow runs and two fast ones.
        let runs: [Double] = [105, 72, 104, 73, 106]
        #expect(Yardstick.medianAndSpread(runs).median == 104)
        let fastest = Yardstick.fastestAndSpread(runs)
        #expect(fastest.fastest == 72)
        #expect(fastest.spread == 106.0 / 72)
    }

    @Test func onASlowDayTheFigureAndTheYardstickMoveTogether() {
        let slow = Yardstick(p256Microseconds: 160, commitMicroseconds: 8000)
        #expect(slow.ratio(1.6, kind: .cpuMilliseconds) == yardstick.ratio(0.8, kind: .cpuMilliseconds))
        #expect(slow.ratio(1250, kind: .perSecond) == yardstick.ratio(2500, kind: .perSecond))
    }

    @Test func medianOfOddAndEvenCountsAndTheSpreadIsLargestOverSmallest() {
        #expect(Yardstick.medianAndSpread([3, 1, 2]) == (2, 3))
        #expect(Yardstick.medianAndSpread([4, 1, 2, 3]) == (2.5, 4))
        #expect(Yardstick.medianAndSpread([]) == (0, 1))
    }

    @Test func aRecordCarriesTheRatiosOfItsFiguresAndRoundTripsAsOneLine() throws {
        let record = BenchRecord(bench: "e2e-signed", profile: "guard", commit: "abc", build: "debug", date: "2026-11-28T08:00:00Z",
                                 machine: "2 cores", arguments: ["e2e"], yardstick: yardstick,
                                 figures: ["worker_cpu_ms": 0.8, "peak_rss_mb": 68, "granted_per_s": 2500])
        #expect(record.ratios == ["worker_cpu_ms": 10, "granted_per_s": 10])
        let line = try record.jsonLine()
        #expect(!line.contains("\n"))
        #expect(try BenchRecord.parse(history: line + "\n\n" + line + "\n") == [record, record])
    }

    @Test func aHistoryLineThatIsNotARecordIsAnErrorNamingTheLine() throws {
        let record = BenchRecord(bench: "queue", profile: "default", commit: "abc", build: "release", date: "d", machine: "m",
                                 arguments: [], yardstick: yardstick, figures: [:])
        do {
            _ = try BenchRecord.parse(history: try record.jsonLine() + "\n{\"bench\": 1}\n")
            Issue.record("a broken line was read")
        } catch {
            #expect("\(error)".contains("line 2"))
        }
    }
}
