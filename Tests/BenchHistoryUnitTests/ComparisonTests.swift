import BenchHistory
import Testing

@Suite struct ComparisonTests {
    static func run(_ commit: String, cpu: Double, p256: Double) -> BenchRecord {
        BenchRecord(bench: "e2e-signed", profile: "compare", commit: commit, build: "release", date: "2026-11-28T08:00:00Z",
                    machine: "2 cores", arguments: [], yardstick: Yardstick(p256Microseconds: p256, commitMicroseconds: 4000),
                    figures: ["machine_cpu_ms": cpu, "peak_rss_mb": 100])
    }

    @Test func bOverAIsReadAgainstTheYardstickAndTheYardstickNarrowsTheSpread() throws {
        // The machine's speed swings 2× between rounds; B costs 20 % less than A throughout.
        let comparison = Comparison(a: [Self.run("a", cpu: 1.0, p256: 100), Self.run("a", cpu: 2.0, p256: 200), Self.run("a", cpu: 1.0, p256: 100)],
                                    b: [Self.run("b", cpu: 0.8, p256: 100), Self.run("b", cpu: 1.6, p256: 200), Self.run("b", cpu: 0.8, p256: 100)])
        let row = try #require(comparison.rows.first { $0.name == "machine_cpu_ms" })
        #expect(abs(row.change - 0.8) < 1e-9)
        #expect(abs(row.spread - 2) < 1e-9)
        #expect(abs((row.ratioSpread ?? 0) - 1) < 1e-9)
        let memory = try #require(comparison.rows.first { $0.name == "peak_rss_mb" })
        #expect(memory.change == 1 && memory.ratioSpread == nil)
        let table = comparison.markdown(aName: "a", bName: "b")
        #expect(table.contains("| machine_cpu_ms | 1.000 (10.00) | 0.800 (8.00) | 0.80× | 2.00× | 1.00× |"))
    }

    @Test func theHistoryIsATablePerBenchProfileAndBuildWithRatiosInBrackets() {
        let tables = HistoryTables.markdown([Self.run("a", cpu: 1.0, p256: 100), Self.run("b", cpu: 0.8, p256: 100)])
        #expect(tables.contains("#### e2e-signed · compare · release"))
        #expect(tables.contains("| 2026-11-28 08:00 | a | 100.0 | 4000 | 1.000 (10.00) | 100 |"))
        #expect(tables.components(separatedBy: "####").count == 2)
    }
}
