import Foundation
import Postgres
import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// The ledger's write (`RecordPurchases`) moves orders as `OrderLifecycle.next` says:
/// a grant naming an order fulfils it only while it is pending.
@Suite("Lifecycle: the ledger's order updates agree with OrderLifecycle.next")
struct OrderAgreementTests {
    @Test func aGrantNamingAnOrderFulfilsItOnlyWhilePending() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        typealias Row = QueueAgreement<OrderLifecycle>.Row<String>
        var rows: [Row] = []
        for state in OrderState.allCases {
            // A product of its own: a spent order never falls back to another pending one.
            let order = "order-\(state.rawValue)"
            try await fixture.pool.query("""
                INSERT INTO receiptq.orders (order_id, user_id, product_id, state) VALUES ($1, 'u', 'p-' || $1, $2)
                """, [order, state.rawValue])
            _ = try await fixture.queue.enqueue([NewJob(receiptData: "r-\(order)", transactionID: "tx-\(order)", userID: "u",
                                                        productID: "p-\(order)", orderID: order)])
            rows.append(Row(key: order, state: state, facts: .init(), budget: "no budget"))
        }
        let leases = try await fixture.queue.claim(limit: 10, worker: "w", lease: .seconds(30))
        #expect(leases.count == rows.count)
        let recorded = try await fixture.queue.record(leases.map { .granting($0) }, worker: "w")
        #expect(Set(recorded.outcomes.values) == [.granted])
        try await QueueAgreement(spec: OrderLifecycle()).expect(.fulfil, rows) { order in
            OrderState(rawValue: try await fixture.pool.query("SELECT state FROM receiptq.orders WHERE order_id = $1",
                                                              [order])[0].decode("state", as: String.self))
        }
    }
}
