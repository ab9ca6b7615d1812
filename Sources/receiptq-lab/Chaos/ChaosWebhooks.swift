import Foundation
import Postgres
import ReceiptQueue
import WebhookReceiver

/// The backend's side of a chaos run: a webhook receiver that goes down (connections refused)
/// and then flaps (30% of deliveries answered 500) on the plan's schedule, while workers are
/// killed and PostgreSQL restarts. At the end every event must have been acknowledged at least
/// once, in order per user; duplicates (a worker killed between the POST and its record) carry
/// the event's own id.
final class ChaosWebhooks: Sendable {
    static let secret = "whsec_chaos_0123456789abcdef"
    let receiver: WebhookReceiver

    private init(receiver: WebhookReceiver) { self.receiver = receiver }

    static func start(pool: PostgresPool) async throws -> ChaosWebhooks {
        let receiver = try await WebhookReceiver.start(secrets: [secret])
        try await pool.withConnection {
            try UpsertWebhookEndpoint.run(WebhookEndpoint(id: "chaos-backend", url: receiver.url, secrets: [secret]), on: $0)
        }
        return ChaosWebhooks(receiver: receiver)
    }

    /// Plays the receiver's faults; returns when the last one is over.
    func run(plan: ChaosPlan, start: ContinuousClock.Instant) async {
        try? await Task.sleep(until: start + plan.receiverDown.lowerBound)
        await receiver.down()
        try? await Task.sleep(until: start + plan.receiverDown.upperBound)
        try? await receiver.up()
        try? await Task.sleep(until: start + plan.receiverFlapping.lowerBound)
        receiver.behave(.init(failureRate: 0.3))
        try? await Task.sleep(until: start + plan.receiverFlapping.upperBound)
        receiver.behave(.init())
    }

    /// Events not yet acknowledged, by id.
    func missing(pool: PostgresPool) async throws -> Set<String> {
        let all = Set(try await pool.query("SELECT id::text AS id FROM receiptq.events").map { try $0.decode("id", as: String.self) })
        return all.subtracting(receiver.acknowledged.map(\.id))
    }

    func invariants(pool: PostgresPool, waited: Double) async throws -> [ChaosInvariant] {
        let missing = try await missing(pool: pool)
        let events: Int = try await pool.query("SELECT count(*) AS n FROM receiptq.events")[0].decode("n")
        let acknowledged = receiver.acknowledged
        var seen: Set<String> = []
        var firsts: [(String, Int64)] = []
        for received in acknowledged where seen.insert(received.id).inserted { firsts.append((received.userID, received.sequence)) }
        let outOfOrder = Dictionary(grouping: firsts, by: \.0).values.filter { list in
            let sequences = list.map(\.1)
            return sequences != sequences.sorted()
        }.count
        return [
            ChaosInvariant(name: "every event delivered to the backend at least once (receiver down, flapping, workers killed)",
                           held: missing.isEmpty && events > 0,
                           figure: String(format: "%d events, %d not acknowledged %.0f s after faults stopped; %d signatures refused",
                                          events, missing.count, waited, receiver.refusedSignatures)),
            ChaosInvariant(name: "webhooks in order per user; duplicates only with the same event id",
                           held: outOfOrder == 0,
                           figure: "\(outOfOrder) users out of order; \(acknowledged.count - seen.count) duplicate deliveries, \(receiver.answeredFailures) answered 500 on purpose"),
        ]
    }

    func stop() async { await receiver.stop() }
}
