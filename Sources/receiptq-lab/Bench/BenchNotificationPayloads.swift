import FakeAppStore
import Foundation

/// The notifications `bench notifications` posts, signed before any clock starts: signing costs
/// two ECDSA signatures and two JSON encodings per notification, which is Apple's work, not ours.
/// Each is a REFUND about a purchase of its own (a refunded consumable, as the fake signs it), with
/// a UUID of its own: no post is a retry the API could answer from its dedup alone.
struct BenchNotificationPayloads: Sendable {
    static let bundleId = "com.example.bench"

    /// The fake's CA and signer; its root is what the API and workers trust.
    let fake: FakeServerAPI

    init() throws {
        fake = try FakeServerAPI(configuration: FakeServerAPIConfiguration(bundleId: Self.bundleId))
    }

    var rootPEM: String { fake.rootCertificatePEM }

    /// `count` request bodies (`{"signedPayload": …}`), signed on every core.
    func bodies(_ count: Int, tag: String) async throws -> [[UInt8]] {
        let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let share = (count + cores - 1) / cores
        let fake = self.fake
        return try await withThrowingTaskGroup(of: (Int, [[UInt8]]).self) { group in
            for part in 0..<cores {
                group.addTask {
                    var bodies: [[UInt8]] = []
                    for index in (part * share)..<min(count, (part + 1) * share) {
                        let bought = try fake.purchases.buy(FakePurchaseRequest(
                            productId: "com.example.bench.gems", customer: "bench-\(tag)-\(index)", notify: false))
                        let refunded = try fake.purchases.revoke(transactionId: bought.transactionId, environment: .production)
                        let jws = fake.signedNotification("REFUND", about: refunded, signedAt: Date())
                        bodies.append(Array(#"{"signedPayload":""#.utf8) + Array(jws.utf8) + Array(#""}"#.utf8))
                    }
                    return (part, bodies)
                }
            }
            var parts: [(Int, [[UInt8]])] = []
            for try await part in group { parts.append(part) }
            return parts.sorted { $0.0 < $1.0 }.flatMap(\.1)
        }
    }
}
