import Foundation
import Postgres

/// Writes a batch's verified purchases to the ledger, set-based, inside the caller's transaction:
/// one row per purchase, with its owner and the order it fulfils, as `LedgerDecision` decides.
///
/// 1. Takes each original transaction's lock (`receiptq.owner:<id>`), sorted, so two writers of
///    one purchase — or of two periods of one subscription — queue, and two batches never wait on
///    each other in a cycle. Every purchase key belongs to one original transaction: its lock
///    covers them all.
/// 2. Computes, in a statement that starts after the locks (its snapshot sees what the previous
///    holder committed), each purchase's key and type (`receiptq.purchase_key`: the catalog's type
///    first; Family Sharing as its original transaction's owner row says, once it has one — a
///    receipt made before iOS 14 names no ownership type, and the signed transaction of the same
///    period does: one purchase, one key), with its original transaction's owner; sorts the batch
///    by key: the order of the decision.
/// 3. Reads the ledger's rows of these keys, and the orders the tokens and order ids name
///    (`FOR UPDATE`, in order id order).
/// 4. Locks the oldest pending orders each user may fall back to, as many per product as the
///    batch has purchases looking for one (`FOR UPDATE SKIP LOCKED`: an order another writer holds
///    is that writer's).
/// 5. Moves the original transactions a token hands to another account
///    (`receiptq.take_owner_by_token`), records the new owners, inserts the granted rows in one
///    statement and fulfils their orders in another. Every grant names its original transaction's
///    owner (`grants_owner_fkey`): a grant the decision got wrong cannot be written.
///
/// A batch in which a token moves an original transaction, or which names a new one both
/// purchased and family-shared, is written one purchase at a time.
///
/// One statement per step for the whole batch: the ledger's write used to be a PL/pgSQL call per
/// purchase (`receiptq.record_purchase`, dropped by migration 0035), 7× the
/// database time of these statements for a batch of 500 (issue 30).
public enum RecordPurchases {
    static let locksSQL = """
        SELECT pg_advisory_xact_lock(hashtextextended('receiptq.owner:' || o.id, 0))
        FROM (SELECT DISTINCT unnest($1::text[]) AS id ORDER BY 1) AS o
        """
    /// Keys, types, ownership types and owners, in decision order; `ord` is the purchase's
    /// 1-based place in the arrays.
    static let keysSQL = """
        SELECT c.ord, c.type, c.ownership_type, c.owner, c.owner_order,
               receiptq.purchase_key(c.transaction_id, c.original_transaction_id, c.web_order_line_item_id, c.type,
                                     c.ownership_type) AS purchase_key
        FROM (
            SELECT c.ord, c.transaction_id, c.original_transaction_id, c.web_order_line_item_id,
                   coalesce(w.ownership_type, c.ownership_type) AS ownership_type, w.user_id AS owner, w.order_id AS owner_order,
                   coalesce(p.type, c.product_type, CASE WHEN c.expires THEN 'auto_renewable' END) AS type
            FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bool[]) WITH ORDINALITY
                AS c(transaction_id, original_transaction_id, web_order_line_item_id, product_id, product_type, ownership_type,
                     expires, ord)
            LEFT JOIN receiptq.products p ON p.product_id = c.product_id                 -- products_pkey
            LEFT JOIN receiptq.owners w ON w.original_transaction_id = c.original_transaction_id   -- owners_pkey
        ) AS c
        ORDER BY purchase_key, c.transaction_id, c.ord
        """
    /// The rows of these keys, and the legacy rows keyed by a transaction of the batch (a row may
    /// come twice: `LedgerDecision` keys them by purchase key).
    static let heldSQL = """
        SELECT purchase_key, transaction_id, original_transaction_id, user_id, order_id, unmatched
        FROM receiptq.grants WHERE purchase_key = ANY($1::text[])                         -- grants_pkey
        UNION ALL
        SELECT purchase_key, transaction_id, original_transaction_id, user_id, order_id, unmatched
        FROM receiptq.grants WHERE transaction_id = ANY($2::text[]) AND purchase_key LIKE 'transaction:%'   -- grants_transaction_idx
        """
    static let ordersSQL = """
        SELECT order_id, user_id, product_id, state, app_account_token
        FROM receiptq.orders
        WHERE app_account_token = ANY($1::uuid[]) OR order_id = ANY($2::text[])           -- orders_app_account_token_idx, orders_pkey
        ORDER BY order_id
        FOR UPDATE
        """
    static let pendingSQL = """
        SELECT o.order_id, o.user_id, o.product_id, o.state, o.app_account_token
        FROM unnest($1::text[], $2::text[], $3::int[]) WITH ORDINALITY AS p(user_id, product_id, n, ord)
        CROSS JOIN LATERAL (
            SELECT o.* FROM receiptq.orders o
            WHERE o.user_id = p.user_id AND o.product_id = p.product_id AND o.state = 'pending'   -- orders_pending_idx
            ORDER BY o.created_at, o.order_id
            LIMIT p.n
            FOR UPDATE SKIP LOCKED
        ) AS o
        ORDER BY p.ord, o.created_at, o.order_id
        """
    static let moveSQL = "SELECT receiptq.take_owner_by_token($1, $2)"
    static let newOwnersSQL = """
        INSERT INTO receiptq.owners (original_transaction_id, user_id, environment, source, order_id, ownership_type)
        SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
        """
    static let insertSQL = """
        INSERT INTO receiptq.grants (job_id, transaction_id, original_transaction_id, web_order_line_item_id, user_id, product_id,
                                     quantity, purchase_date, expires_date, environment, ownership_type, product_type, purchase_key,
                                     order_id, unmatched, order_mismatch, claimed_product_id, app_account_token, storefront, price,
                                     currency, signed_under)
        SELECT g.job_id, g.transaction_id, g.original_transaction_id, g.web_order_line_item_id, g.user_id, g.product_id,
               g.quantity, to_timestamp(g.purchase_ms / 1000.0), to_timestamp(g.expires_ms / 1000.0), g.environment,
               g.ownership_type, g.product_type, g.purchase_key, g.order_id, g.unmatched, g.order_mismatch,
               g.claimed_product_id, g.app_account_token, g.storefront, g.price, g.currency, $22
        FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::bigint[], $9::bigint[],
                    $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::bool[], $16::bool[], $17::text[],
                    $18::uuid[], $19::text[], $20::bigint[], $21::text[])
            AS g(job_id, transaction_id, original_transaction_id, web_order_line_item_id, user_id, product_id, quantity,
                 purchase_ms, expires_ms, environment, ownership_type, product_type, purchase_key, order_id, unmatched,
                 order_mismatch, claimed_product_id, app_account_token, storefront, price, currency)
        """
    static let fulfilSQL = """
        UPDATE receiptq.orders SET state = $2, fulfilled_at = now()
        WHERE order_id = ANY($1::text[])                                                  -- orders_pkey
        """

    /// A verified transaction of a held job.
    public struct Entry: Sendable {
        public var lease: JobLease
        public var candidate: GrantCandidate

        public init(lease: JobLease, candidate: GrantCandidate) {
            self.lease = lease
            self.candidate = candidate
        }
    }

    /// The verdict per job (in the batch's lock order).
    public static func run(_ entries: [Entry], ownership: OwnershipPolicy, now: Date = Date(),
                           on connection: PostgresConnection) throws -> [LedgerDecision.Verdict] {
        guard !entries.isEmpty else { return [] }
        let candidates = entries.map(\.candidate)
        try connection.query(locksSQL, [candidates.map(\.originalTransactionID)])
        var ordered: [(entry: Entry, type: String?, ownershipType: String, key: String)] = []
        var owners: [String: LedgerDecision.Owner] = [:]
        for row in try connection.query(keysSQL, [
            candidates.map(\.transactionID), candidates.map(\.originalTransactionID), candidates.map(\.webOrderLineItemID),
            candidates.map(\.productID), candidates.map(\.productType), candidates.map(\.ownershipType),
            candidates.map { $0.expiresDateMs != nil },
        ]) {
            let entry = entries[Int(try row.decode("ord", as: Int64.self)) - 1]
            ordered.append((entry, try row.decodeIfPresent("type"), try row.decode("ownership_type"), try row.decode("purchase_key")))
            if let owner: String = try row.decodeIfPresent("owner") {
                owners[entry.candidate.originalTransactionID] = .init(userID: owner, orderID: try row.decodeIfPresent("owner_order"))
            }
        }
        // A new original transaction the batch names both as purchased and as family-shared (a receipt
        // without the type, a signed transaction with it): whichever is written first decides its
        // keys, so the batch is written one purchase at a time, in its order.
        let unowned = Dictionary(grouping: ordered.filter { owners[$0.entry.candidate.originalTransactionID] == nil },
                                 by: \.entry.candidate.originalTransactionID)
        if entries.count > 1, unowned.values.contains(where: { Set($0.map(\.ownershipType)).count > 1 }) {
            return try ordered.flatMap { try run([$0.entry], ownership: ownership, now: now, on: connection) }
        }
        let keys = ordered.map(\.key)
        var held: [LedgerDecision.HeldGrant] = []
        for row in try connection.query(heldSQL, [keys, ordered.map(\.entry.candidate.transactionID)]) {
            held.append(.init(purchaseKey: try row.decode("purchase_key"), transactionID: try row.decode("transaction_id"),
                              originalTransactionID: try row.decode("original_transaction_id"),
                              userID: try row.decode("user_id"), orderID: try row.decodeIfPresent("order_id"),
                              unmatched: try row.decode("unmatched")))
        }
        let purchases = ordered.map { item in
            LedgerDecision.Purchase(
                jobID: item.entry.lease.id, userID: item.entry.lease.userID, transactionID: item.entry.candidate.transactionID,
                productID: item.entry.candidate.productID, purchaseKey: item.key,
                originalTransactionID: item.entry.candidate.originalTransactionID, environment: item.entry.candidate.environment,
                family: item.ownershipType == "FAMILY_SHARED", appleToken: item.entry.candidate.appAccountToken,
                claimedToken: item.entry.lease.appAccountToken, claimedOrderID: item.entry.lease.orderID,
                proven: item.entry.lease.isProof, vouched: item.entry.lease.kind == .transactionID && item.entry.lease.trustedClaim)
        }
        // Only the purchases the ledger does not hold yet may fulfil an order; Apple's token names
        // whom any purchase is due to.
        let heldKeys = Set(held.map(\.purchaseKey))
        let heldTransactions = Set(held.filter { $0.purchaseKey.hasPrefix("transaction:") }.map(\.transactionID))
        let open = purchases.filter { !heldKeys.contains($0.purchaseKey) && !heldTransactions.contains($0.transactionID) }
        let tokens = Array(Set(purchases.compactMap(\.appleToken) + open.compactMap(\.claimedToken))).map(\.uuidString)
        let orderIDs = Array(Set(open.compactMap(\.claimedOrderID)))
        let orders = tokens.isEmpty && orderIDs.isEmpty ? [] : try connection.query(ordersSQL, [tokens, orderIDs]).map(Self.order)

        let decision = LedgerDecision(requireAppAccountToken: ownership.requireAppAccountToken)
        let first = decision.decide(purchases, owners: owners, held: held, orders: orders, now: now)
        if !first.moves.isEmpty && entries.count > 1 {
            // A token moves an original transaction to another account partway through the batch:
            // its grants before the move are the first owner's, those after the new one's, and
            // the move carries the earlier ones along. Written one purchase at a time, in lock
            // order, under the locks already held: rare (an upgrade bought from another account),
            // and exactly what the batch means.
            return try ordered.flatMap { try run([$0.entry], ownership: ownership, now: now, on: connection) }
        }
        let demand = first.fallbackDemand
        var pending: [LedgerDecision.UserProduct: [LedgerDecision.Order]] = [:]
        if !demand.isEmpty {
            let pairs = Array(demand)
            for row in try connection.query(pendingSQL, [pairs.map(\.key.userID), pairs.map(\.key.productID), pairs.map(\.value)]) {
                let order = try Self.order(row)
                pending[.init(userID: order.userID, productID: order.productID), default: []].append(order)
            }
        }
        let outcome = decision.decide(purchases, owners: owners, held: held, orders: orders, pending: pending, now: now)

        for move in outcome.moves {
            try connection.query(moveSQL, [move.originalTransactionID, move.orderID])
        }
        if !outcome.newOwners.isEmpty {
            let new = outcome.newOwners
            try connection.query(newOwnersSQL, [new.map(\.originalTransactionID), new.map(\.userID), new.map(\.environment),
                                                new.map(\.source.rawValue), new.map(\.orderID),
                                                new.map { $0.family ? "FAMILY_SHARED" : "PURCHASED" }])
        }
        let granted = zip(ordered, outcome.verdicts).filter { $0.1.result == .granted }
        if !granted.isEmpty {
            try insert(granted.map { item in
                Row(entry: item.0.entry, type: item.0.type, ownershipType: item.0.ownershipType, verdict: item.1)
            }, signedUnder: ownership.testRoots ? "test-roots" : "apple", on: connection)
        }
        if !outcome.fulfilled.isEmpty {
            try connection.query(fulfilSQL, [outcome.fulfilled, OrderState.fulfilled.rawValue])
        }
        return outcome.verdicts
    }

    private struct Row {
        var entry: Entry
        var type: String?
        /// As its original transaction's owner row says, once it has one (step 2).
        var ownershipType: String
        var verdict: LedgerDecision.Verdict

        /// The product the client claimed, kept when Apple signed another.
        var claimedProductID: String? {
            entry.lease.productID.flatMap { $0 != entry.candidate.productID ? $0 : nil }
        }
    }

    private static func insert(_ rows: [Row], signedUnder: String, on connection: PostgresConnection) throws {
        let c = rows.map(\.entry.candidate), v = rows.map(\.verdict)
        let jobIDs: [Int64] = v.map(\.jobID)
        let userIDs: [String] = rows.map(\.entry.lease.userID)
        let types: [String?] = rows.map(\.type)
        let keys: [String?] = v.map(\.purchaseKey)
        let orderIDs: [String?] = v.map(\.orderID)
        let unmatched: [Bool] = v.map { $0.unmatched ?? true }
        let mismatched: [Bool] = v.map(\.orderMismatch)
        let claimed: [String?] = rows.map(\.claimedProductID)
        let tokens: [String?] = v.map { $0.appAccountToken?.uuidString }
        var parameters: [(any PostgresEncodable)?] = [jobIDs, c.map(\.transactionID), c.map(\.originalTransactionID)]
        parameters += [c.map(\.webOrderLineItemID), userIDs, c.map(\.productID), c.map(\.quantity), c.map(\.purchaseDateMs)]
        parameters += [c.map(\.expiresDateMs), c.map(\.environment), rows.map(\.ownershipType), types, keys, orderIDs]
        parameters += [unmatched, mismatched, claimed, tokens, c.map(\.storefront), c.map(\.price), c.map(\.currency)]
        parameters.append(signedUnder)
        try connection.query(insertSQL, parameters)
    }

    private static func order(_ row: PostgresRow) throws -> LedgerDecision.Order {
        LedgerDecision.Order(orderID: try row.decode("order_id"), userID: try row.decode("user_id"),
                             productID: try row.decode("product_id"),
                             state: OrderState(rawValue: try row.decode("state")) ?? .cancelled,
                             appAccountToken: try row.decodeIfPresent("app_account_token", as: String.self).flatMap(UUID.init(uuidString:)))
    }
}
