import AppleSignedData
import AppleTestPKI
import ArgumentParser
import CommandSupport
import FakeAppStore
import Foundation
import X509

/// `receiptq-lab bench jws`: how many signed transactions one core verifies per second, with the
/// verified chain cached (the steady state: Apple signs with a handful of certificates) and cold
/// (a new verifier each time, so the chain is parsed and validated again). Transactions are signed
/// by the fake App Store's signer under a test CA, each payload different. One task, so the rate
/// is per core; CPU time is reported beside wall time.
struct BenchJWS: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jws",
        abstract: "Signed transactions verified per second per core, with a warm chain cache and cold.")

    @Option(help: "Verifications with a warm chain cache.") var warm = 50_000
    @Option(help: "Verifications with a new verifier each (chain validated every time).") var cold = 2_000
    @Option(help: "Distinct signed transactions cycled through.") var distinct = 1_000
    @Flag(help: "Print one JSON object.") var json = false

    func validate() throws {
        guard warm > 0, cold > 0, distinct > 0 else { throw ValidationError("--warm, --cold and --distinct must be positive") }
    }

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.bench-jws", defaultLevel: .error)
        let bundleId = "com.example.bench"
        let fake = try FakeServerAPI(configuration: FakeServerAPIConfiguration(bundleId: bundleId))
        let transactions = try (0..<distinct).map { index in
            fake.signer.signTransaction(try fake.buy(FakePurchaseRequest(
                productId: "com.example.bench.coins\(index % 7)", customer: "c\(index)", appAccountToken: UUID().uuidString, notify: false)))
        }
        let configuration = SignedDataVerifier.Configuration(
            trustedRoots: [try Certificate(pemEncoded: fake.rootCertificatePEM)], bundleIds: [bundleId], environment: .production)

        let verifier = try SignedDataVerifier(configuration: configuration)
        _ = try await verifier.verifyTransaction(transactions[0])   // warm the cache
        let warmResult = try await Self.time(warm) { index in
            _ = try await verifier.verifyTransaction(transactions[index % transactions.count])
        }
        let coldResult = try await Self.time(cold) { index in
            _ = try await SignedDataVerifier(configuration: configuration).verifyTransaction(transactions[index % transactions.count])
        }
        if json {
            print(#"{"warm_per_second":\#(Int(warmResult.perCPUSecond)),"warm_wall_per_second":\#(Int(warmResult.perWallSecond)),"#
                  + #""cold_per_second":\#(Int(coldResult.perCPUSecond)),"cold_wall_per_second":\#(Int(coldResult.perWallSecond))}"#)
        } else {
            print("""
                bench jws: StoreKit 2 style transactions (ES256, x5c leaf → WWDR intermediate → root), one task
                  warm chain cache: \(Int(warmResult.perCPUSecond).formatted()) verified per CPU second (\(Int(warmResult.perWallSecond).formatted())/s wall, \(warm) verifications); goal ≥ 10,000: \(warmResult.perCPUSecond >= 10_000 ? "met" : "NOT met")
                  cold (chain validated each time): \(Int(coldResult.perCPUSecond).formatted()) per CPU second (\(Int(coldResult.perWallSecond).formatted())/s wall, \(cold) verifications)
                """)
        }
    }

    struct Timing {
        let perWallSecond: Double
        let perCPUSecond: Double
    }

    static func time(_ count: Int, _ body: (Int) async throws -> Void) async throws -> Timing {
        let cpuBefore = ResourceUsage.now().cpuSeconds
        let clock = ContinuousClock()
        let started = clock.now
        for index in 0..<count { try await body(index) }
        let wall = clock.now - started
        let cpu = ResourceUsage.now().cpuSeconds - cpuBefore
        let wallSeconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
        return Timing(perWallSecond: Double(count) / wallSeconds, perCPUSecond: Double(count) / max(cpu, 1e-9))
    }
}
