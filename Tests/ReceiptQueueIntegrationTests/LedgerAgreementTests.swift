import Foundation
import Postgres
import ReceiptQueue
import Testing

/// The set-based ledger write (`RecordPurchases`, decided by `LedgerDecision` for the whole batch
/// at once) records what writing the same purchases one by one, in the batch's lock order,
/// records — the same verdicts, ledger rows, owners, moves and orders — on generated batches:
/// several users and tokens, orders pending, spent or of another product, purchases and original
/// transactions already owned, family sharing, bare claims and the token policy.
@Suite("Ledger: a batch writes what its purchases written one by one write")
struct LedgerAgreementTests {
    static let ledgerSQL = """
        SELECT string_agg(concat_ws('|', purchase_key, transaction_id, original_transaction_id, job_id, user_id, product_id, quantity,
                                    purchase_date, expires_date, environment, ownership_type, product_type, order_id, unmatched,
                                    order_mismatch, claimed_product_id, app_account_token, storefront, price, currency, signed_under),
                          E'\\n' ORDER BY purchase_key) AS ledger,
               (SELECT string_agg(order_id || '=' || state || ':' || (fulfilled_at IS NOT NULL), ',' ORDER BY order_id)
                FROM receiptq.orders) AS orders,
               (SELECT string_agg(concat_ws('|', original_transaction_id, user_id, environment, source, order_id), ',' ORDER BY original_transaction_id)
                FROM receiptq.owners) AS owners,
               (SELECT string_agg(concat_ws('|', user_id, body->>'original_transaction_id', body->>'direction'), ',' ORDER BY sequence)
                FROM receiptq.events WHERE type = 'grant.transferred') AS moves
        FROM receiptq.grants
        """

    struct Scenario: CustomStringConvertible {
        var orders: [(id: String, user: String, product: String, state: String, token: UUID?)] = []
        var held: [(key: String, transaction: String, user: String)] = []
        /// Original transactions of the batch someone owns already.
        var owned: [(original: String, user: String)] = []
        var batch: [(lease: JobLease, candidate: GrantCandidate)] = []
        var ownership = OwnershipPolicy()
        var description: String {
            "orders \(orders) held \(held) owned \(owned) batch \(batch.map { ($0.lease.userID, $0.lease.kind, $0.lease.orderID ?? "-", $0.lease.appAccountToken?.uuidString.prefix(4) ?? "-", $0.candidate.transactionID, $0.candidate.originalTransactionID, $0.candidate.productID, $0.candidate.productType ?? "-", $0.candidate.ownershipType, $0.candidate.appAccountToken?.uuidString.prefix(4) ?? "-") }) require \(ownership.requireAppAccountToken)"
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
        for original in ["o0", "o1"] where random.next(3) == 0 {
            scenario.owned.append((original, users[random.next(3)]))
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
        var owners: String?
        var moves: String?
    }

    /// Writes the scenario's rows, runs `write`, reads what it left, and rolls back.
    static func play(_ scenario: Scenario, on pool: PostgresPool,
                     _ write: @escaping @Sendable (PostgresConnection) throws -> [String]) async throws -> Written {
        let orders = scenario.orders, held = scenario.held, owned = scenario.owned
        return try await pool.withConnection { connection in
            try connection.query("BEGIN")
            defer { _ = try? connection.query("ROLLBACK") }
            for order in orders {
                try connection.query("INSERT INTO receiptq.orders (order_id, user_id, product_id, state, app_account_token) VALUES ($1, $2, $3, $4, $5::uuid)",
                                     [order.id, order.user, order.product, order.state, order.token?.uuidString])
            }
            // Every grant names its original transaction's owner (grants_owner_fkey): a held row's
            // transaction is its own original, owned by the first held row's user.
            var owners: [String: String] = [:]
            for (original, user) in owned { owners[original] = owners[original] ?? user }
            for grant in held { owners[grant.transaction] = owners[grant.transaction] ?? grant.user }
            for (original, user) in owners.sorted(by: { $0.key < $1.key }) {
                try connection.query("INSERT INTO receiptq.owners (original_transaction_id, user_id, environment, source) VALUES ($1, $2, 'Production', 'proof')",
                                     [original, user])
            }
            for (index, grant) in held.enumerated() {
                try connection.query("""
                    INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment, purchase_key)
                    VALUES ($1, $1, $2, $3, 'gems', 'Production', $4)
                    """, [grant.transaction, Int64(index + 1), owners[grant.transaction] ?? grant.user, grant.key])
            }
            let verdicts = try write(connection)
            let row = try connection.query(ledgerSQL)[0]
            return Written(verdicts: verdicts, ledger: try row.decodeIfPresent("ledger"), orders: try row.decodeIfPresent("orders"),
                           owners: try row.decodeIfPresent("owners"), moves: try row.decodeIfPresent("moves"))
        }
    }

    static func line(_ verdict: LedgerDecision.Verdict) -> String {
        "\(verdict.jobID) \(verdict.result.rawValue) \(verdict.purchaseKey ?? "-") \(verdict.orderID ?? "-") \(verdict.unmatched.map(String.init) ?? "-") \(verdict.reason ?? "-")"
    }

    @Test(arguments: 0..<3)
    func aBatchWritesWhatItsPurchasesWrittenOneByOneWrite(_ part: Int) async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        var compared = 0, granted = 0, matched = 0, elsewhere = 0, moved = 0
        for seed in UInt64(part * 100)..<UInt64(part * 100 + 100) {
            let scenario = Self.scenario(seed)
            let batch = scenario.batch, ownership = scenario.ownership
            let lockOrder = LockOrder()
            let setBased = try await Self.play(scenario, on: fixture.pool) { connection in
                let verdicts = try RecordPurchases.run(batch.map { .init(lease: $0.lease, candidate: $0.candidate) }, ownership: ownership,
                                                       on: connection)
                lockOrder.set(verdicts.map(\.jobID))
                return verdicts.map(Self.line).sorted()
            }
            let order = lockOrder.get()
            let oneByOne = try await Self.play(scenario, on: fixture.pool) { connection in
                var lines: [String] = []
                for id in order {
                    let entry = batch.first { $0.lease.id == id }!
                    lines += try RecordPurchases.run([.init(lease: entry.lease, candidate: entry.candidate)], ownership: ownership,
                                                     on: connection).map(Self.line)
                }
                return lines.sorted()
            }
            #expect(setBased == oneByOne, "seed \(seed): \(scenario)")
            compared += 1
            let fields = setBased.verdicts.map { $0.split(separator: " ").map(String.init) }
            granted += fields.filter { $0[1] == "granted" }.count
            matched += fields.filter { $0[1] == "granted" && $0[4] == "false" }.count
            elsewhere += fields.filter { $0[1] == "owned_elsewhere" }.count
            moved += setBased.moves == nil ? 0 : 1
        }
        // The generated batches reach the interesting branches, not only the plain grant.
        #expect(compared == 100 && granted > 50 && matched > 5 && elsewhere > 10 && moved > 0,
                "granted \(granted), matched to an order \(matched), owned elsewhere \(elsewhere), batches with a move \(moved)")
    }
}

/// The job ids of a batch in the order its write took them.
final class LockOrder: @unchecked Sendable {
    private var ids: [Int64] = []
    private let lock = NSLock()
    func set(_ ids: [Int64]) { lock.withLock { self.ids = ids } }
    func get() -> [Int64] { lock.withLock { ids } }
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
