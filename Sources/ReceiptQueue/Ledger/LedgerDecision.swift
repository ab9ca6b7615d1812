import Foundation

/// Who owns each purchase of a batch of verified transactions, and which order each fulfils
/// (DESIGN: Ownership) — decided for the whole batch at once, as if its purchases were written one
/// by one in lock order. Pure: `RecordPurchases` reads the rows it needs (under the original
/// transactions' and purchases' advisory locks and the orders' row locks) and writes what it returns.
///
/// Ownership is per original transaction, for the purchase's whole life: every period, renewal,
/// upgrade and restore of it follows one owner. For each purchase, in order:
/// 1. The owner it is due to: the user of the order Apple's signed appAccountToken names, when
///    nobody owns the original transaction yet, or when that order is still pending (a purchase
///    or upgrade made from that account: it moves the original transaction to it); else the
///    original transaction's owner; else nobody yet. A spent order's token — the one every renewal
///    repeats — never moves it, so support's transfer is never undone by a renewal.
/// 2. Due to someone else: `owned_elsewhere`, nothing written (the owner's own submission writes).
/// 3. Nobody owns it yet and no token names an order: `token_required` when the app demands one
///    (not for family sharing), else `unproven` for a bare claim (a transaction id without proof);
///    else the submitter becomes its owner (the first submitter with proof).
/// 4. The ledger already holds the purchase key (or a legacy `transaction:` key of its
///    transaction): `already_granted` to its owner; a row held by another account (written before
///    owners were kept) reads `owned_elsewhere`. An earlier purchase of the batch counts as held.
/// 5. Granted. The order it fulfils, never for a family member: the order the token names if it is
///    for this product and pending (another product: `order_mismatch`); else the user's pending order
///    the client's claimed token names; else the order id the client sent, if it is the user's,
///    pending and for this product (another product: `order_mismatch`); else the user's oldest
///    pending order for the product. An order is fulfilled once (`OrderLifecycle`).
public struct LedgerDecision: Sendable {
    /// One verified transaction to record, with its purchase key and product type as the ledger
    /// computed them (`receiptq.purchase_key`, the catalog's type first).
    public struct Purchase: Sendable, Equatable {
        public var jobID: Int64
        public var userID: String
        public var transactionID: String
        public var productID: String
        public var purchaseKey: String
        /// What ownership is kept by: every period, renewal and restore of one purchase shares it.
        public var originalTransactionID: String
        public var environment: String
        public var family: Bool
        /// The appAccountToken Apple signed.
        public var appleToken: UUID?
        /// What the client claimed at submission: a hint for matching this user's orders only.
        public var claimedToken: UUID?
        public var claimedOrderID: String?
        /// The submission proves who paid (a receipt or a signed transaction, or a trusted claim).
        public var proven: Bool
        /// The proof is a backend's word (a transaction id from a token trusted for claims).
        public var vouched: Bool

        /// `originalTransactionID` nil: the transaction is its own original (a first purchase).
        public init(jobID: Int64, userID: String, transactionID: String, productID: String, purchaseKey: String,
                    originalTransactionID: String? = nil, environment: String = "Production",
                    family: Bool = false, appleToken: UUID? = nil, claimedToken: UUID? = nil, claimedOrderID: String? = nil,
                    proven: Bool = true, vouched: Bool = false) {
            self.jobID = jobID
            self.userID = userID
            self.transactionID = transactionID
            self.productID = productID
            self.purchaseKey = purchaseKey
            self.originalTransactionID = originalTransactionID ?? transactionID
            self.environment = environment
            self.family = family
            self.appleToken = appleToken
            self.claimedToken = claimedToken
            self.claimedOrderID = claimedOrderID
            self.proven = proven
            self.vouched = vouched
        }
    }

    /// Whose an original transaction is (`receiptq.owners`).
    public struct Owner: Sendable, Equatable {
        public var userID: String
        /// The order that decided it, when one did.
        public var orderID: String?

        public init(userID: String, orderID: String? = nil) {
            self.userID = userID
            self.orderID = orderID
        }
    }

    /// How an owner was decided (`owners.source`).
    public enum OwnerSource: String, Sendable, Equatable {
        /// An Apple-signed appAccountToken names the user's order.
        case token
        /// The first submitter with proof: a receipt or a signed transaction.
        case proof
        /// A transaction id from a backend token trusted for claims.
        case claim
    }

    /// An original transaction the batch gives its first owner.
    public struct NewOwner: Sendable, Equatable {
        public var originalTransactionID: String
        public var userID: String
        public var environment: String
        public var source: OwnerSource
        public var orderID: String?
        /// A family member's access (FAMILY_SHARED): its every purchase key says so from now on.
        public var family: Bool

        public init(originalTransactionID: String, userID: String, environment: String, source: OwnerSource, orderID: String?,
                    family: Bool = false) {
            self.originalTransactionID = originalTransactionID
            self.userID = userID
            self.environment = environment
            self.source = source
            self.orderID = orderID
            self.family = family
        }
    }

    /// An original transaction a token naming another account's pending order moves to it
    /// (`receiptq.take_owner_by_token`), before the batch's grants are written.
    public struct Move: Sendable, Equatable {
        public var originalTransactionID: String
        public var fromUserID: String
        public var toUserID: String
        public var orderID: String

        public init(originalTransactionID: String, fromUserID: String, toUserID: String, orderID: String) {
            self.originalTransactionID = originalTransactionID
            self.fromUserID = fromUserID
            self.toUserID = toUserID
            self.orderID = orderID
        }
    }

    /// A ledger row already written.
    public struct HeldGrant: Sendable, Equatable {
        public var purchaseKey: String
        public var transactionID: String
        public var originalTransactionID: String
        public var userID: String
        public var orderID: String?
        public var unmatched: Bool

        public init(purchaseKey: String, transactionID: String, originalTransactionID: String? = nil, userID: String,
                    orderID: String? = nil, unmatched: Bool = true) {
            self.purchaseKey = purchaseKey
            self.transactionID = transactionID
            self.originalTransactionID = originalTransactionID ?? transactionID
            self.userID = userID
            self.orderID = orderID
            self.unmatched = unmatched
        }
    }

    public struct Order: Sendable, Equatable {
        public var orderID: String
        public var userID: String
        public var productID: String
        public var state: OrderState
        public var appAccountToken: UUID?

        public init(orderID: String, userID: String, productID: String, state: OrderState = .pending, appAccountToken: UUID? = nil) {
            self.orderID = orderID
            self.userID = userID
            self.productID = productID
            self.state = state
            self.appAccountToken = appAccountToken
        }
    }

    /// A user's purchases of one product: the key of the pending orders they may fall back to.
    public struct UserProduct: Sendable, Hashable {
        public var userID: String
        public var productID: String

        public init(userID: String, productID: String) {
            self.userID = userID
            self.productID = productID
        }
    }

    public enum Result: String, Sendable, Equatable {
        case granted
        case alreadyGranted = "already_granted"
        case ownedElsewhere = "owned_elsewhere"
        /// A bare claim: a transaction id alone does not prove who paid.
        case unproven
        /// The app requires an Apple-signed appAccountToken naming one of its orders.
        case tokenRequired = "token_required"
    }

    public struct Verdict: Sendable, Equatable {
        public var jobID: Int64
        public var result: Result
        /// The ledger row's key (granted, or held before); nil when nothing is written.
        public var purchaseKey: String?
        public var orderID: String?
        public var unmatched: Bool?
        public var orderMismatch = false
        /// What the grant keeps of the appAccountToken: Apple's, else the matched order's.
        public var appAccountToken: UUID?
        public var reason: String?
    }

    public struct Outcome: Sendable, Equatable {
        /// One per purchase, in the order given.
        public var verdicts: [Verdict]
        /// Orders the grants fulfil.
        public var fulfilled: [String]
        /// Per user and product, how many purchases look for an order: the most pending orders the
        /// batch may fall back to (`RecordPurchases` locks that many, oldest first).
        public var fallbackDemand: [UserProduct: Int]
        /// Original transactions that get their first owner (written before their grants).
        public var newOwners: [NewOwner] = []
        /// Original transactions that move to another account (carried out before the grants).
        public var moves: [Move] = []
    }

    public var requireAppAccountToken: Bool
    private let orderLifecycle = OrderLifecycle()

    public init(requireAppAccountToken: Bool = false) {
        self.requireAppAccountToken = requireAppAccountToken
    }

    /// - Parameters:
    ///   - purchases: in lock order (purchase key, then transaction id).
    ///   - owners: the owners of these purchases' original transactions.
    ///   - held: the ledger's rows of these purchase keys, and the legacy `transaction:` rows of
    ///     these transactions.
    ///   - orders: the orders the purchases' tokens and order ids name (row-locked).
    ///   - pending: per user and product, their pending orders oldest first (row-locked; at most
    ///     `fallbackDemand` of them). Empty to learn the demand.
    public func decide(_ purchases: [Purchase], owners: [String: Owner] = [:], held: [HeldGrant], orders: [Order],
                       pending: [UserProduct: [Order]] = [:], now: Date = Date()) -> Outcome {
        var owners = owners
        var byKey: [String: HeldGrant] = [:]
        var legacyByTransaction: [String: HeldGrant] = [:]
        for grant in held {
            byKey[grant.purchaseKey] = grant
            if grant.purchaseKey.hasPrefix("transaction:") && legacyByTransaction[grant.transactionID] == nil {
                legacyByTransaction[grant.transactionID] = grant
            }
        }
        var byID: [String: Order] = [:]
        for order in orders + pending.values.joined() { byID[order.orderID] = order }
        var byToken: [UUID: String] = [:]
        for order in byID.values { if let token = order.appAccountToken { byToken[token] = order.orderID } }
        var fallbackNext: [UserProduct: Int] = [:]

        var outcome = Outcome(verdicts: [], fulfilled: [], fallbackDemand: [:])
        for purchase in purchases {
            var verdict = Verdict(jobID: purchase.jobID, result: .granted)
            let original = purchase.originalTransactionID
            let current = owners[original]
            let tokenOrder = purchase.family ? nil : purchase.appleToken.flatMap { byToken[$0] }.flatMap { byID[$0] }
            // 1. The owner it is due to.
            let due: String?
            if let tokenOrder, current == nil || tokenOrder.state == .pending {
                due = tokenOrder.userID
            } else {
                due = current?.userID
            }
            // 2. Someone else's.
            if let due, due != purchase.userID {
                // The row it would have been, when there is one: ops see whose it is (ownership_refusals).
                verdict.purchaseKey = (byKey[purchase.purchaseKey] ?? legacyByTransaction[purchase.transactionID])?.purchaseKey
                let named = tokenOrder.map { $0.userID == due } ?? false
                (verdict.result, verdict.reason) = (.ownedElsewhere, named
                    ? "Apple's appAccountToken names an order of another account"
                    : "this purchase belongs to another account")
                outcome.verdicts.append(verdict)
                continue
            }
            // 3. Nobody's yet: the policy, and proof.
            if due == nil {
                if requireAppAccountToken && !purchase.family {
                    (verdict.result, verdict.reason) = (.tokenRequired, Self.tokenRequiredReason)
                    outcome.verdicts.append(verdict)
                    continue
                }
                if !purchase.proven {
                    (verdict.result, verdict.reason) = (.unproven, "a transaction id alone does not prove who paid: submit the receipt or the signed transaction")
                    outcome.verdicts.append(verdict)
                    continue
                }
            }
            // The submitter owns it, or is about to.
            if let current, current.userID != purchase.userID, let tokenOrder {
                outcome.moves.append(Move(originalTransactionID: original, fromUserID: current.userID, toUserID: purchase.userID,
                                          orderID: tokenOrder.orderID))
                owners[original] = Owner(userID: purchase.userID, orderID: tokenOrder.orderID)
                // Every grant of the original transaction moves with it (grants_owner_fkey).
                for (key, grant) in byKey where grant.originalTransactionID == original { byKey[key]?.userID = purchase.userID }
                for (id, grant) in legacyByTransaction where grant.originalTransactionID == original {
                    legacyByTransaction[id]?.userID = purchase.userID
                }
            }
            // 4. Held: the owner's resubmission.
            if let grant = byKey[purchase.purchaseKey] ?? legacyByTransaction[purchase.transactionID] {
                verdict.purchaseKey = grant.purchaseKey
                verdict.orderID = grant.orderID
                verdict.unmatched = grant.unmatched
                if grant.userID == purchase.userID {
                    (verdict.result, verdict.reason) = (.alreadyGranted, "this purchase was granted before")
                } else {
                    (verdict.result, verdict.reason) = (.ownedElsewhere, "this purchase belongs to another account")
                }
                outcome.verdicts.append(verdict)
                continue
            }
            // 5. Granted, with the order it fulfils.
            var matched: Order?
            if !purchase.family {
                let pair = UserProduct(userID: purchase.userID, productID: purchase.productID)
                outcome.fallbackDemand[pair, default: 0] += 1
                if let tokenOrder {
                    if tokenOrder.productID != purchase.productID {
                        verdict.orderMismatch = true
                    } else if tokenOrder.state == .pending {
                        matched = tokenOrder
                    }
                }
                if matched == nil, let claimed = purchase.claimedToken, claimed != purchase.appleToken,
                   let order = byToken[claimed].flatMap({ byID[$0] }),
                   order.userID == purchase.userID, order.state == .pending, order.productID == purchase.productID {
                    matched = order
                }
                if matched == nil, let id = purchase.claimedOrderID, let order = byID[id] {
                    if order.productID != purchase.productID {
                        verdict.orderMismatch = true
                    } else if order.state == .pending && order.userID == purchase.userID {
                        matched = order
                    }
                }
                if matched == nil, let oldest = pending[pair] {
                    var index = fallbackNext[pair, default: 0]
                    while index < oldest.count, byID[oldest[index].orderID]?.state != .pending { index += 1 }
                    if index < oldest.count { matched = byID[oldest[index].orderID] }
                    fallbackNext[pair] = index + 1
                }
            }
            if let order = matched, let next = orderLifecycle.next(order.state, on: .fulfil, facts: .init(), now: now) {
                byID[order.orderID]?.state = next
                outcome.fulfilled.append(order.orderID)
            }
            if owners[original] == nil {
                let source: OwnerSource = tokenOrder != nil ? .token : purchase.vouched ? .claim : .proof
                let decidedBy = tokenOrder?.orderID ?? matched?.orderID
                outcome.newOwners.append(NewOwner(originalTransactionID: original, userID: purchase.userID,
                                                  environment: purchase.environment, source: source, orderID: decidedBy,
                                                  family: purchase.family))
                owners[original] = Owner(userID: purchase.userID, orderID: decidedBy)
            }
            verdict.purchaseKey = purchase.purchaseKey
            verdict.orderID = matched?.orderID
            verdict.unmatched = matched == nil
            verdict.appAccountToken = purchase.appleToken ?? matched?.appAccountToken
            byKey[purchase.purchaseKey] = HeldGrant(purchaseKey: purchase.purchaseKey, transactionID: purchase.transactionID,
                                                    originalTransactionID: original, userID: purchase.userID,
                                                    orderID: matched?.orderID, unmatched: matched == nil)
            outcome.verdicts.append(verdict)
        }
        return outcome
    }

    static let tokenRequiredReason = "no appAccountToken Apple signed names one of our orders, and this app requires one (--require-app-account-token): "
        + "held for review, never granted to whoever submits it"
}
