import BenchHistory
import Crypto
import Foundation
import Postgres

/// Measures the yardstick (BenchHistory's `Yardstick`) on this machine now: `runs` runs of 400
/// P-256 verifications on this thread (CPU time) and of 200 one-row UPDATE + commit on one
/// connection to `configuration`'s database (wall time), the fastest run of each.
enum YardstickProbe {
    static func measure(_ configuration: PostgresConfiguration, runs: Int = 5) async throws -> Yardstick {
        let p256 = Yardstick.fastestAndSpread((0..<runs).map { _ in p256Run(400) })
        let pool = PostgresPool(configuration: configuration, size: 1)
        defer { pool.shutdown() }
        let table = "receiptq_yardstick_\(getpid())"
        let commits = try await pool.withConnection { connection in
            try connection.query("CREATE TABLE IF NOT EXISTS public.\(table) (id int PRIMARY KEY, n bigint NOT NULL)")
            try connection.query("INSERT INTO public.\(table) VALUES (1, 0) ON CONFLICT (id) DO NOTHING")
            defer { _ = try? connection.query("DROP TABLE IF EXISTS public.\(table)") }
            for _ in 0..<20 { try connection.query("UPDATE public.\(table) SET n = n + 1 WHERE id = 1") }   // warm
            return try (0..<runs).map { _ in
                let start = ContinuousClock.now
                for _ in 0..<200 { try connection.query("UPDATE public.\(table) SET n = n + 1 WHERE id = 1") }
                return (ContinuousClock.now - start).seconds * 1e6 / 200
            }
        }
        let commit = Yardstick.fastestAndSpread(commits)
        return Yardstick(p256Microseconds: p256.fastest, commitMicroseconds: commit.fastest, p256Spread: p256.spread, commitSpread: commit.spread)
    }

    /// CPU microseconds per verification over `count` verifications of one signature.
    static func p256Run(_ count: Int) -> Double {
        let key = P256.Signing.PrivateKey()
        let message = Data("receiptq yardstick: one ES256 verification, as of a signed transaction".utf8)
        guard let signature = try? key.signature(for: message) else { return .nan }
        let start = threadCPU()
        var valid = 0
        for _ in 0..<count where key.publicKey.isValidSignature(signature, for: message) { valid += 1 }
        precondition(valid == count, "the yardstick's signature did not verify")
        return (threadCPU() - start) * 1e6 / Double(count)
    }

    /// This thread's CPU time, in seconds.
    static func threadCPU() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
