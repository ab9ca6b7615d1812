import Foundation
import ReceiptQueue
import Testing

/// The ownership rule for a batch (DESIGN: Ownership), as a table: who gets each purchase and
/// which order it fulfils, with the batch's earlier purchases counting as written.
@Suite("Ledger: who owns each purchase of a batch, and which order it fulfils")
struct LedgerDecisionTests {
    typealias Purchase = LedgerDecision.Purchase
    typealias Order = LedgerDecision.Order
    static let token = UUID(uuidString: "11111111-1111-1111-1111-111111111111")!
    static let other = UUID(uuidString: "22222222-2222-2222-2222-222222222222")!

    static func purchase(_ job: Int64, user: String = "alice", key: String = "purchase:t1", transaction: String = "t1",
                         original: String? = nil, product: String = "gems", family: Bool = false, apple: UUID? = nil,
                         claimed: UUID? = nil, order: String? = nil, proven: Bool = true, vouched: Bool = false) -> Purchase {
        Purchase(jobID: job, userID: user, transactionID: transaction, productID: product, purchaseKey: key, originalTransactionID: original,
                 family: family, appleToken: apple, claimedToken: claimed, claimedOrderID: order, proven: proven, vouched: vouched)
    }

    /// Period `n` of subscription `o1`: its own key and transaction, one original transaction.
    static func period(_ job: Int64, _ n: Int, user: String = "alice", apple: UUID? = nil, proven: Bool = true) -> Purchase {
        purchase(job, user: user, key: "period:\(n)", transaction: "p\(n)", original: "o1", product: "monthly", apple: apple, proven: proven)
    }

    @Test func aNewPurchaseWithProofGoesToItsSubmitterUnmatched() {
        let outcome = LedgerDecision().decide([Self.purchase(1)], held: [], orders: [])
        #expect(outcome.verdicts.map(\.result) == [.granted])
        #expect(outcome.verdicts[0].purchaseKey == "purchase:t1" && outcome.verdicts[0].unmatched == true)
        #expect(outcome.fulfilled.isEmpty)
    }

    @Test func aHeldPurchaseIsAlreadyGrantedToItsOwnerAndAnotherAccountsToEveryoneElse() {
        let held = [LedgerDecision.HeldGrant(purchaseKey: "purchase:t1", transactionID: "t1", userID: "alice", orderID: "o1", unmatched: false)]
        let outcome = LedgerDecision().decide([Self.purchase(1), Self.purchase(2, user: "mallory")], held: held, orders: [])
        #expect(outcome.verdicts.map(\.result) == [.alreadyGranted, .ownedElsewhere])
        #expect(outcome.verdicts.allSatisfy { $0.purchaseKey == "purchase:t1" && $0.orderID == "o1" && $0.unmatched == false })
        #expect(outcome.fallbackDemand.isEmpty)
    }

    @Test func aLegacyRowKeyedByTheTransactionCountsAsHeld() {
        let held = [LedgerDecision.HeldGrant(purchaseKey: "transaction:t1", transactionID: "t1", userID: "alice")]
        let outcome = LedgerDecision().decide([Self.purchase(1, user: "bob")], held: held, orders: [])
        #expect(outcome.verdicts.map(\.result) == [.ownedElsewhere])
        #expect(outcome.verdicts[0].purchaseKey == "transaction:t1")
    }

    @Test func theBatchsFirstPurchaseOfAKeyWinsTheRestReadItAsHeld() {
        let outcome = LedgerDecision().decide([Self.purchase(1), Self.purchase(2), Self.purchase(3, user: "mallory")], held: [], orders: [])
        #expect(outcome.verdicts.map(\.result) == [.granted, .alreadyGranted, .ownedElsewhere])
    }

    @Test func aBareClaimIsNotProofAndTheFirstWithProofStillWins() {
        let outcome = LedgerDecision().decide([Self.purchase(1, user: "mallory", proven: false), Self.purchase(2)], held: [], orders: [])
        #expect(outcome.verdicts.map(\.result) == [.unproven, .granted])
        #expect(outcome.verdicts[0].purchaseKey == nil)
    }

    @Test func applesTokenNamingAnotherUsersOrderMakesItTheirsWhoeverSubmits() {
        let orders = [Order(orderID: "o1", userID: "alice", productID: "gems", appAccountToken: Self.token)]
        let outcome = LedgerDecision().decide([Self.purchase(1, user: "mallory", apple: Self.token), Self.purchase(2, apple: Self.token)],
                                              held: [], orders: orders)
        #expect(outcome.verdicts.map(\.result) == [.ownedElsewhere, .granted])
        #expect(outcome.verdicts[1].orderID == "o1" && outcome.verdicts[1].appAccountToken == Self.token)
        #expect(outcome.fulfilled == ["o1"])
    }

    @Test func theTokenNamesTheOwnerEvenOfABareClaimAndUnderThePolicy() {
        let orders = [Order(orderID: "o1", userID: "alice", productID: "gems", appAccountToken: Self.token)]
        let strict = LedgerDecision(requireAppAccountToken: true)
        #expect(strict.decide([Self.purchase(1, apple: Self.token, proven: false)], held: [], orders: orders).verdicts.map(\.result) == [.granted])
        #expect(strict.decide([Self.purchase(1, proven: true)], held: [], orders: []).verdicts.map(\.result) == [.tokenRequired])
        // A family member's purchase carries no token of ours: the policy does not hold it.
        #expect(strict.decide([Self.purchase(1, family: true)], held: [], orders: []).verdicts.map(\.result) == [.granted])
    }

    @Test func anOrderIsFulfilledOnceAndOnlyWhilePending() {
        let orders = [Order(orderID: "o1", userID: "alice", productID: "gems"),
                      Order(orderID: "spent", userID: "alice", productID: "gems", state: .fulfilled)]
        let outcome = LedgerDecision().decide([Self.purchase(1, order: "o1"), Self.purchase(2, key: "purchase:t2", transaction: "t2", order: "o1"),
                                               Self.purchase(3, key: "purchase:t3", transaction: "t3", order: "spent")],
                                              held: [], orders: orders)
        #expect(outcome.verdicts.map(\.orderID) == ["o1", nil, nil])
        #expect(outcome.fulfilled == ["o1"])
    }

    @Test func anOrderOfAnotherProductIsAMismatchAndAnotherUsersIsIgnored() {
        let orders = [Order(orderID: "coins", userID: "alice", productID: "coins", appAccountToken: Self.token),
                      Order(orderID: "bobs", userID: "bob", productID: "gems")]
        let outcome = LedgerDecision().decide([Self.purchase(1, apple: Self.token), Self.purchase(2, key: "purchase:t2", transaction: "t2", order: "bobs")],
                                              held: [], orders: orders)
        #expect(outcome.verdicts.map(\.result) == [.granted, .granted])
        #expect(outcome.verdicts.map(\.orderMismatch) == [true, false])
        #expect(outcome.verdicts.map(\.orderID) == [nil, nil])
        // Apple's token is kept on the grant even when its order was for something else.
        #expect(outcome.verdicts[0].appAccountToken == Self.token)
    }

    @Test func theClientsClaimedTokenMatchesOnlyItsOwnPendingOrder() {
        let orders = [Order(orderID: "mine", userID: "alice", productID: "gems", appAccountToken: Self.other),
                      Order(orderID: "bobs", userID: "bob", productID: "gems", appAccountToken: Self.token)]
        let decision = LedgerDecision()
        let mine = decision.decide([Self.purchase(1, claimed: Self.other)], held: [], orders: orders)
        #expect(mine.verdicts[0].orderID == "mine" && mine.verdicts[0].appAccountToken == Self.other)
        let bobs = decision.decide([Self.purchase(1, claimed: Self.token)], held: [], orders: orders)
        #expect(bobs.verdicts[0].result == .granted && bobs.verdicts[0].orderID == nil)
    }

    @Test func withoutAnyNamedOrderTheUsersOldestPendingOrdersAreTakenInTurn() {
        let pair = LedgerDecision.UserProduct(userID: "alice", productID: "gems")
        let purchases = [Self.purchase(1), Self.purchase(2, key: "purchase:t2", transaction: "t2"),
                         Self.purchase(3, key: "purchase:t3", transaction: "t3")]
        let decision = LedgerDecision()
        let asked = decision.decide(purchases, held: [], orders: [])
        #expect(asked.fallbackDemand == [pair: 3])
        let pending = [pair: [Order(orderID: "old", userID: "alice", productID: "gems"), Order(orderID: "new", userID: "alice", productID: "gems")]]
        let outcome = decision.decide(purchases, held: [], orders: [], pending: pending)
        #expect(outcome.verdicts.map(\.orderID) == ["old", "new", nil])
        #expect(outcome.fulfilled == ["old", "new"])
        #expect(outcome.fallbackDemand == asked.fallbackDemand)
    }

    @Test func anOrderTakenByAnEarlierFallbackIsNotPendingForTheTokenThatNamesIt() {
        let pair = LedgerDecision.UserProduct(userID: "alice", productID: "gems")
        let named = Order(orderID: "a", userID: "alice", productID: "gems", appAccountToken: Self.token)
        let purchases = [Self.purchase(1), Self.purchase(2, key: "purchase:t2", transaction: "t2", apple: Self.token)]
        let outcome = LedgerDecision().decide(purchases, held: [], orders: [named],
                                              pending: [pair: [named, Order(orderID: "b", userID: "alice", productID: "gems")]])
        #expect(outcome.verdicts.map(\.orderID) == ["a", "b"])
    }

    @Test func aFamilyMembersAccessNeverFulfilsAnOrder() {
        let pair = LedgerDecision.UserProduct(userID: "alice", productID: "gems")
        let orders = [Order(orderID: "o1", userID: "alice", productID: "gems", appAccountToken: Self.token)]
        let outcome = LedgerDecision().decide([Self.purchase(1, family: true, apple: Self.token, order: "o1")], held: [], orders: orders,
                                              pending: [pair: orders])
        #expect(outcome.verdicts[0].result == .granted && outcome.verdicts[0].orderID == nil)
        #expect(outcome.fulfilled.isEmpty && outcome.fallbackDemand.isEmpty)
    }

    // MARK: - One owner per original transaction, for its whole life

    @Test func anyPeriodOfSomeoneElsesSubscriptionIsOwnedElsewhereAndNothingIsWritten() {
        let owners = ["o1": LedgerDecision.Owner(userID: "alice")]
        let held = [LedgerDecision.HeldGrant(purchaseKey: "period:2", transactionID: "p2", originalTransactionID: "o1", userID: "alice")]
        // An older period, the held one, a newer one: none of them is another account's to take.
        let outcome = LedgerDecision().decide([Self.period(1, 1, user: "mallory"), Self.period(2, 2, user: "mallory"),
                                               Self.period(3, 3, user: "mallory")], owners: owners, held: held, orders: [])
        #expect(outcome.verdicts.map(\.result) == [.ownedElsewhere, .ownedElsewhere, .ownedElsewhere])
        #expect(outcome.verdicts.map(\.purchaseKey) == [nil, "period:2", nil], "a held row is named for ops, nothing new is")
        #expect(outcome.newOwners.isEmpty && outcome.moves.isEmpty && outcome.fulfilled.isEmpty)
    }

    @Test func theOwnersNewPeriodIsGrantedEvenOnABareClaimAndTheirHeldOneIsAlreadyGranted() {
        let owners = ["o1": LedgerDecision.Owner(userID: "alice")]
        let held = [LedgerDecision.HeldGrant(purchaseKey: "period:1", transactionID: "p1", originalTransactionID: "o1", userID: "alice")]
        let strict = LedgerDecision(requireAppAccountToken: true)
        let outcome = strict.decide([Self.period(1, 1), Self.period(2, 2, proven: false)], owners: owners, held: held, orders: [])
        #expect(outcome.verdicts.map(\.result) == [.alreadyGranted, .granted], "ownership was proven once; a renewal needs no token")
        #expect(outcome.newOwners.isEmpty)
    }

    @Test func theFirstPeriodWithProofDecidesTheOwnerOfEveryPeriodInTheBatch() {
        let outcome = LedgerDecision().decide([Self.period(1, 1, user: "bob", proven: false), Self.period(2, 2),
                                               Self.period(3, 3, user: "mallory"), Self.period(4, 4)], held: [], orders: [])
        #expect(outcome.verdicts.map(\.result) == [.unproven, .granted, .ownedElsewhere, .granted])
        #expect(outcome.newOwners == [.init(originalTransactionID: "o1", userID: "alice", environment: "Production", source: .proof, orderID: nil)])
    }

    @Test func theOwnersSourceSaysHowItWasDecided() {
        let orders = [Order(orderID: "o-token", userID: "alice", productID: "gems", appAccountToken: Self.token)]
        let outcome = LedgerDecision().decide([Self.purchase(1, apple: Self.token),
                                               Self.purchase(2, key: "purchase:t2", transaction: "t2", proven: true, vouched: true),
                                               Self.purchase(3, key: "purchase:t3", transaction: "t3")], held: [], orders: orders)
        #expect(outcome.newOwners.map(\.source) == [.token, .claim, .proof])
        #expect(outcome.newOwners[0].orderID == "o-token")
    }

    @Test func aTokenNamingAnotherAccountsPendingOrderMovesTheWholeSubscriptionToIt() {
        let owners = ["o1": LedgerDecision.Owner(userID: "alice")]
        let held = [LedgerDecision.HeldGrant(purchaseKey: "period:1", transactionID: "p1", originalTransactionID: "o1", userID: "alice")]
        let orders = [Order(orderID: "o-bob", userID: "bob", productID: "monthly", appAccountToken: Self.token)]
        let outcome = LedgerDecision().decide([Self.period(1, 2, user: "alice", apple: Self.token), Self.period(2, 2, user: "bob", apple: Self.token),
                                               Self.period(3, 1, user: "bob"), Self.period(4, 1, user: "alice")],
                                              owners: owners, held: held, orders: orders)
        #expect(outcome.verdicts.map(\.result) == [.ownedElsewhere, .granted, .alreadyGranted, .ownedElsewhere],
                "the token's account takes it, with the periods held before; the old owner reads another account's")
        #expect(outcome.moves == [.init(originalTransactionID: "o1", fromUserID: "alice", toUserID: "bob", orderID: "o-bob")])
        #expect(outcome.verdicts[1].orderID == "o-bob" && outcome.fulfilled == ["o-bob"])
        #expect(outcome.verdicts[0].reason?.contains("appAccountToken") == true)
    }

    @Test func aSpentOrdersTokenNeverMovesIt() {
        // Support moved it to alice-new; every renewal still carries the token of alice's first order.
        let owners = ["o1": LedgerDecision.Owner(userID: "alice-new")]
        let orders = [Order(orderID: "o-alice", userID: "alice", productID: "monthly", state: .fulfilled, appAccountToken: Self.token)]
        let outcome = LedgerDecision().decide([Self.period(1, 5, user: "alice", apple: Self.token), Self.period(2, 5, user: "alice-new", apple: Self.token)],
                                              owners: owners, held: [], orders: orders)
        #expect(outcome.verdicts.map(\.result) == [.ownedElsewhere, .granted])
        #expect(outcome.moves.isEmpty)
    }

    @Test func aFamilyMembersOwnOriginalTransactionIsTheirsAlone() {
        let owners = ["f1": LedgerDecision.Owner(userID: "child")]
        let outcome = LedgerDecision().decide([Self.purchase(1, user: "child", key: "family:purchase:f1", transaction: "f1", family: true),
                                               Self.purchase(2, user: "mallory", key: "family:purchase:f1", transaction: "f1", family: true)],
                                              owners: owners, held: [], orders: [])
        #expect(outcome.verdicts.map(\.result) == [.granted, .ownedElsewhere])
    }
}
