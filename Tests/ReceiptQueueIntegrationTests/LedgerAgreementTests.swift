import Foundation
import Postgres
import ReceiptQueue
import Testing

/// The set-based ledger write (`RecordPurchases`, decided by `LedgerDecision`) records what the
/// per-purchase PL/pgSQL it replaced (`receiptq.record_purchase`, still installed for workers of
/// the previous version) records — the same verdicts, ledger rows and orders — on generated
/// batches: several users and tokens, orders pending, spent or of another product, purchases
/// already held, family sharing, bare claims and the token policy.
@Suite("Ledger: the set-based write agrees with record_purchase, purchase by purchase")
struct LedgerAgreementTests {
    /// The write as workers of the previous version made it: one `record_purchase` per purchase,
    /// in purchase-key order (the batch's order among equal keys).
    static let perPurchaseSQL = """
        SELECT c.job_id, g.result, g.purchase_key, g.matched_order_id, g.unmatched, g.reason
        FROM (
            SELECT c.*
            FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::bigint[],
                        $9::bigint[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::uuid[], $16::uuid[],
                        $17::text[], $18::bigint[], $19::text[], $20::bool[]) WITH ORDINALITY
                AS c(job_id, transaction_id, original_transaction_id, web_order_line_item_id, user_id, product_id, quantity,
                     purchase_ms, expires_ms, environment, ownership_type, order_id, claimed_product_id, product_type,
                     app_account_token, claimed_app_account_token, storefront, price, currency, proven, ord)
            LEFT JOIN receiptq.products p ON p.product_id = c.product_id
            ORDER BY receiptq.purchase_key(c.transaction_id, c.original_transaction_id, c.web_order_line_item_id,
                                           coalesce(p.type, c.product_type, CASE WHEN c.expires_ms IS NOT NULL THEN 'auto_renewable' END),
                                           c.ownership_type),
                     c.transaction_id, c.ord
        ) AS c
        CROSS JOIN LATERAL receiptq.record_purchase(
            c.job_id, c.transaction_id, c.original_transaction_id, c.web_order_line_item_id, c.user_id, c.product_id,
            c.quantity, to_timestamp(c.purchase_ms / 1000.0), to_timestamp(c.expires_ms / 1000.0), c.environment,
            c.ownership_type, c.order_id, c.claimed_product_id, c.product_type, c.app_account_token, c.claimed_app_account_token,
            c.storefront, c.price, c.currency, c.proven, $21) AS g
        """
    static let ledgerSQL = """
        SELECT string_agg(concat_ws('|', purchase_key, transaction_id, original_transaction_id, job_id, user_id, product_id, quantity,
                                    purchase_date, expires_date, environment, ownership_type, product_type, order_id, unmatched,
                                    order_mismatch, claimed_product_id, app_account_token, storefront, price, currency, signed_under),
                          E'\\n' ORDER BY purchase_key) AS ledger,
               (SELECT string_agg(order_id || '=' || state || ':' || (fulfilled_at IS NOT NULL), ',' ORDER BY order_id)
                FROM receiptq.orders) AS orders
        FROM receiptq.grants
        """

    struct Scenario: CustomStringConvertible {
        var orders: [(id: String, user: String, product: String, state: String, token: UUID?)] = []
        var held: [(key: String, transaction: String, user: String)] = []
        var batch: [(lease: JobLease, candidate: GrantCandidate)] = []
        var ownership = OwnershipPolicy()
        var description: String {
            "orders \(orders) held \(held) batch \(batch.map { ($0.lease.userID, $0.lease.kind, $0.lease.orderID ?? "-", $0.lease.appAccountToken?.uuidString.prefix(4) ?? "-", $0.candidate.transactionID, $0.candidate.originalTransactionID, $0.candidate.productID, $0.candidate.productType ?? "-", $0.candidate.ownershipType, $0.candidate.appAccountToken?.uuidString.prefix(4) ?? "-") }) require \(ownership.requireAppAccountToken)"
        }
    }

    /// A small world, so that purchases collide: three users, two products, four transactions of
    /// two originals, two tokens.
    static func scenario(_ seed: UInt64) -> Scenario {
        var random = SplitMix(seed)
        let users = ["alice", "bob", "mallory"], products = ["gems", "coins"]
        let tokens: [UUID?] = [UUID(uuidString: "aaaaaaaa-0000-0000-0000-000000000001"), UUID(uuidString: "bbbbbbbb-0000-0000-0000-000000000002"), nil]
        var scenario = Scenario()
        var usedTokens = Set<UUID>()
        for index in 0..<random.next(4) {
            var token = tokens[random.next(3)]
            if let t = token, usedTokens.contains(t) { token = nil }
            if let token { usedTokens.insert(token) }
            scenario.orders.append(("ord\(index)", users[random.next(3)], products[random.next(2)],
                                    ["pending", "pending", "fulfilled", "cancelled"][random.next(4)], token))
        }
        for _ in 0..<random.next(3) {
            let transaction = "t\(random.next(4))"
            let key = ["purchase:\(transaction)", "purchase:o\(random.next(2))", "transaction:\(transaction)"][random.next(3)]
            if !scenario.held.contains(where: { $0.key == key }) { scenario.held.append((key, transaction, users[random.next(3)])) }
        }
        for index in 0..<(1 + random.next(5)) {
            let number = random.next(4)
            let kind: JobKind = [.receipt, .signedTransaction, .transactionID][random.next(3)]
            let lease = JobLease(id: Int64(100 + index), kind: kind, attempt: 1, receiptData: "", appAccountToken: tokens[random.next(3)],
                                 transactionID: "t\(number)", userID: users[random.next(3)],
                                 productID: [nil, "gems", "coins"][random.next(3)],
                                 orderID: [nil, nil, "ord0", "ord1", "ord2"][random.next(5)], createdAt: Date(), lockedUntil: Date(),
                                 trustedClaim: random.next(4) == 0)
            let candidate = GrantCandidate(transactionID: "t\(number)", originalTransactionID: "o\(number % 2)", productID: products[random.next(2)],
                                           quantity: 1, purchaseDateMs: 1_700_000_000_000, environment: "Production",
                                           ownershipType: random.next(5) == 0 ? "FAMILY_SHARED" : "PURCHASED",
                                           productType: ["consumable", "non_consumable", nil][random.next(3)],
                                           appAccountToken: tokens[random.next(3)], storefront: "USA", price: 990, currency: "USD")
            scenario.batch.append((lease, candidate))
        }
        scenario.ownership = OwnershipPolicy(requireAppAccountToken: random.next(4) == 0, testRoots: random.next(2) == 0)
        return scenario
    }

    struct Written: Equatable {
        var verdicts: [String]
        var ledger: String?
        var orders: String?
    }

    /// Writes the scenario's rows, runs `write`, reads what it left, and rolls back.
    static func play(_ scenario: Scenario, on pool: PostgresPool,
                     _ write: @escaping @Sendable (PostgresConnection) throws -> [String]) async throws -> Written {
        let orders = scenario.orders, held = scenario.held
        return try await pool.withConnection { connection in
            try connection.query("BEGIN")
            defer { _ = try? connection.query("ROLLBACK") }
            for order in orders {
                try connection.query("INSERT INTO receiptq.orders (order_id, user_id, product_id, state, app_account_token) VALUES ($1, $2, $3, $4, $5::uuid)",
                                     [order.id, order.user, order.product, order.state, order.token?.uuidString])
            }
            for (index, grant) in held.enumerated() {
                try connection.query("""
                    INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment, purchase_key)
                    VALUES ($1, $1, $2, $3, 'gems', 'Production', $4)
                    """, [grant.transaction, Int64(index + 1), grant.user, grant.key])
            }
            let verdicts = try write(connection)
            let row = try connection.query(ledgerSQL)[0]
            return Written(verdicts: verdicts, ledger: try row.decodeIfPresent("ledger"), orders: try row.decodeIfPresent("orders"))
        }
    }

    @Test(arguments: 0..<3)
    func theSetBasedWriteRecordsWhatRecordPurchaseRecorded(_ part: Int) async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        var compared = 0, granted = 0, matched = 0
        for seed in UInt64(part * 100)..<UInt64(part * 100 + 100) {
            let scenario = Self.scenario(seed)
            let batch = scenario.batch, ownership = scenario.ownership
            let setBased = try await Self.play(scenario, on: fixture.pool) { connection in
                try RecordPurchases.run(batch.map { .init(lease: $0.lease, candidate: $0.candidate) }, ownership: ownership, on: connection)
                    .map { "\($0.jobID) \($0.result.rawValue) \($0.purchaseKey ?? "-") \($0.orderID ?? "-") \($0.unmatched.map(String.init) ?? "-") \($0.reason ?? "-")" }
                    .sorted()
            }
            let perPurchase = try await Self.play(scenario, on: fixture.pool) { connection in
                let g = batch.map(\.candidate), l = batch.map(\.lease)
                let rows = try connection.query(Self.perPurchaseSQL, [
                    l.map(\.id), g.map(\.transactionID), g.map(\.originalTransactionID), g.map(\.webOrderLineItemID), l.map(\.userID),
                    g.map(\.productID), g.map(\.quantity), g.map(\.purchaseDateMs), g.map(\.expiresDateMs), g.map(\.environment),
                    g.map(\.ownershipType), l.map(\.orderID), l.map(\.productID), g.map(\.productType),
                    g.map { $0.appAccountToken?.uuidString }, l.map { $0.appAccountToken?.uuidString }, g.map(\.storefront),
                    g.map(\.price), g.map(\.currency), l.map(\.isProof), ownership.requireAppAccountToken,
                ])
                if ownership.testRoots {
                    try connection.query("UPDATE receiptq.grants SET signed_under = 'test-roots' WHERE job_id >= 100")
                }
                return try rows.map { row in
                    let unmatched = try row.decodeIfPresent("unmatched", as: Bool.self)
                    return "\(try row.decode("job_id", as: Int64.self)) \(try row.decode("result", as: String.self)) "
                        + "\(try row.decodeIfPresent("purchase_key", as: String.self) ?? "-") \(try row.decodeIfPresent("matched_order_id", as: String.self) ?? "-") "
                        + "\(unmatched.map(String.init) ?? "-") \(try row.decodeIfPresent("reason", as: String.self) ?? "-")"
                }.sorted()
            }
            #expect(setBased == perPurchase, "seed \(seed): \(scenario)")
            compared += 1
            let fields = setBased.verdicts.map { $0.split(separator: " ").map(String.init) }
            granted += fields.filter { $0[1] == "granted" }.count
            matched += fields.filter { $0[1] == "granted" && $0[4] == "false" }.count
        }
        // The generated batches reach the interesting branches, not only the plain grant.
        #expect(compared == 100 && granted > 50 && matched > 5, "granted \(granted), matched to an order \(matched)")
    }
}

/// A small seeded generator (SplitMix64), so a failing scenario can be replayed by its seed.
struct SplitMix {
    var state: UInt64
    init(_ seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
