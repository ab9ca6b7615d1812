import BenchHistory
import Testing

@Suite struct BenchGuardTests {
    static let day = Yardstick(p256Microseconds: 80, commitMicroseconds: 4000)
    static let slowDay = Yardstick(p256Microseconds: 200, commitMicroseconds: 10_000)

    static func run(_ figures: [String: Double], yardstick: Yardstick = day, profile: String = "guard", build: String = "debug",
                    commit: String = "new") -> BenchRecord {
        BenchRecord(bench: "e2e-signed", profile: profile, commit: commit, build: build, date: "2026-11-28T08:00:00Z",
                    machine: "2 cores", arguments: [], yardstick: yardstick, figures: figures)
    }

    let guarded = ["worker_cpu_ms", "granted_per_s", "peak_rss_mb"]
    let recorded = [run(["worker_cpu_ms": 1.0, "granted_per_s": 600, "peak_rss_mb": 60], commit: "old")]

    @Test func aRunLikeTheRecordedOnePasses() {
        let verdict = BenchGuard().check(Self.run(["worker_cpu_ms": 1.2, "granted_per_s": 500, "peak_rss_mb": 70]), against: recorded, guarded: guarded)
        guard case .passed(let findings) = verdict else { Issue.record("\(verdict)"); return }
        #expect(findings.map(\.name) == guarded)
    }

    @Test func aSlowDayIsNotARegression() {
        // Everything 2.5× slower, and so is the yardstick: the ratios are the recorded ones.
        let verdict = BenchGuard().check(Self.run(["worker_cpu_ms": 2.5, "granted_per_s": 240, "peak_rss_mb": 60], yardstick: Self.slowDay),
                                         against: recorded, guarded: guarded)
        guard case .passed(let findings) = verdict else { Issue.record("\(verdict)"); return }
        #expect(findings.allSatisfy { abs($0.worse - 1) < 1e-9 || $0.name == "peak_rss_mb" })
    }

    @Test func aCostOrARateOneAndAHalfTimesWorseOnTheSameDayRegresses() {
        for figures in [["worker_cpu_ms": 1.6, "granted_per_s": 600, "peak_rss_mb": 60],
                        ["worker_cpu_ms": 1.0, "granted_per_s": 390, "peak_rss_mb": 60],
                        ["worker_cpu_ms": 1.0, "granted_per_s": 600, "peak_rss_mb": 91]] {
            let verdict = BenchGuard().check(Self.run(figures), against: recorded, guarded: guarded)
            guard case .regressed(let findings) = verdict else { Issue.record("\(figures): \(verdict)"); continue }
            #expect(findings.filter(\.regressed).count == 1)
        }
    }

    @Test func aRegressionHiddenByAFastDayIsStillFound() {
        // Today's machine is twice as fast, the code 1.6× slower: 1.0 ms reads as 1.6 verifications' worth more.
        let fast = Yardstick(p256Microseconds: 40, commitMicroseconds: 2000)
        let verdict = BenchGuard().check(Self.run(["worker_cpu_ms": 0.8, "granted_per_s": 1200, "peak_rss_mb": 60], yardstick: fast),
                                         against: recorded, guarded: guarded)
        guard case .regressed(let findings) = verdict else { Issue.record("\(verdict)"); return }
        #expect(findings.first { $0.regressed }?.name == "worker_cpu_ms")
    }

    @Test func theBaselineIsTheLastThreeRecordsOfTheSameBenchProfileAndBuild() {
        let history = [Self.run(["worker_cpu_ms": 1], commit: "a"), Self.run(["worker_cpu_ms": 2], commit: "b"),
                       Self.run(["worker_cpu_ms": 3], build: "release", commit: "c"), Self.run(["worker_cpu_ms": 4], profile: "default", commit: "d"),
                       Self.run(["worker_cpu_ms": 5], commit: "e"), Self.run(["worker_cpu_ms": 6], commit: "f")]
        #expect(BenchGuard.baseline(for: Self.run([:]), in: history).map(\.commit) == ["b", "e", "f"])
        #expect(BenchGuard.baseline(for: Self.run([:], build: "release"), in: history).map(\.commit) == ["c"])
        #expect(BenchGuard.baseline(for: Self.run([:], profile: "other"), in: history).isEmpty)
    }

    @Test func theBarIsTheMedianOfTheRecordedRunsNotTheLuckiestOne() {
        let three = [Self.run(["worker_cpu_ms": 0.5]), Self.run(["worker_cpu_ms": 1.0]), Self.run(["worker_cpu_ms": 1.1])]
        // 1.4 ms is 2.8× the lucky 0.5 ms but 1.4× the median 1.0 ms.
        guard case .passed(let findings) = BenchGuard().check(Self.run(["worker_cpu_ms": 1.4]), against: three, guarded: ["worker_cpu_ms"]) else {
            Issue.record("compared with the luckiest run"); return
        }
        #expect(abs((findings.first?.worse ?? 0) - 1.4) < 1e-9)
    }

    @Test func nothingRecordedOrAGuardedFigureGoneCannotPass() {
        #expect(BenchGuard().check(Self.run(["worker_cpu_ms": 1]), against: [], guarded: guarded)
                == .cannotCompare("no recorded e2e-signed run of profile guard in a debug build to compare with"))
        guard case .cannotCompare(let why) = BenchGuard().check(Self.run(["granted_per_s": 600, "peak_rss_mb": 60]), against: recorded, guarded: guarded) else {
            Issue.record("a run without worker_cpu_ms passed"); return
        }
        #expect(why.contains("worker_cpu_ms"))
    }

    @Test func aFigureNotYetRecordedIsNotGuardedUntilItIs() {
        let older = [Self.run(["worker_cpu_ms": 1.0], commit: "old")]
        let verdict = BenchGuard().check(Self.run(["worker_cpu_ms": 1.0, "peak_rss_mb": 500]), against: older, guarded: guarded)
        guard case .passed(let findings) = verdict else { Issue.record("\(verdict)"); return }
        #expect(findings.map(\.name) == ["worker_cpu_ms"])
    }
}
