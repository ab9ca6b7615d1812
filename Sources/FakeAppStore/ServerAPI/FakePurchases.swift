import Foundation
import Synchronization

/// The fake's purchases: what the Server API endpoints serve and what admin requests change.
/// Transactions of both environments live here, each visible only through its own environment.
/// Safe to share; every change is one locked step.
public final class FakePurchases: Sendable {
    struct State {
        var purchases: [FakePurchase] = []
        var index: [String: Int] = [:]   // "Production/2000000000000001" → position
        var nextTransaction: Int64 = 2_000_000_000_000_001
        var nextWebOrder: Int64 = 2_000_000_000_500_001
        var nextOrder: Int64 = 1
        /// "Production/customer-1" → the customer's app transaction id.
        var appTransactions: [String: String] = [:]
        /// "Production/customer-1" → the version and date of the customer's first download, for
        /// a customer `downloadApp` made (else version "1" at their first purchase).
        var appDownloads: [String: (version: String, date: Int64)] = [:]
        /// "Production/2000000000000001" for each transaction the server finished (Finish Transaction).
        var finished: Set<String> = []
        var nextAppTransaction: Int64 = 7_000_000_000_000_001
        /// Mass renewal-date extensions, "Production/productId/requestIdentifier" → status.
        var massExtensions: [String: FakeMassExtension] = [:]
        /// Each purchase's place in Apple's modification order (by position): Get Transaction
        /// History v2 serves transactions oldest-modified first, and its revision is the last
        /// modification a page held, so a walk resumed from it sees what changed since (a new
        /// period, a refund, a reversal, an upgrade) — `touch` on every change.
        var modified: [Int64] = []
        var nextModification: Int64 = 1
    }

    let state = Mutex(State())
    let now: @Sendable () -> Date

    init(now: @escaping @Sendable () -> Date) {
        self.now = now
    }

    static func key(_ environment: FakeEnvironment, _ transactionId: String) -> String {
        environment.rawValue + "/" + transactionId
    }

    /// A new purchase (or subscription's first period).
    public func buy(_ request: FakePurchaseRequest) throws -> FakePurchase {
        let productId = request.productId.trimmingCharacters(in: .whitespaces)
        guard !productId.isEmpty, productId.count <= 200 else { throw FakeAdminError.badRequest("productId must be 1-200 characters") }
        guard let type = FakeProductType(loosely: request.type ?? "Consumable") else {
            throw FakeAdminError.badRequest("type must be Consumable, Non-Consumable, Auto-Renewable Subscription or Non-Renewing Subscription")
        }
        guard let environment = FakeEnvironment(loosely: request.environment ?? "Production") else {
            throw FakeAdminError.badRequest("environment must be Production or Sandbox")
        }
        if let token = request.appAccountToken, UUID(uuidString: token) == nil {
            throw FakeAdminError.badRequest("appAccountToken must be a UUID")
        }
        let quantity = request.quantity ?? 1
        guard (1...100).contains(quantity) else { throw FakeAdminError.badRequest("quantity must be 1-100") }
        if let seconds = request.expiresInSeconds, seconds <= 0 { throw FakeAdminError.badRequest("expiresInSeconds must be positive") }
        let storefront = request.storefront ?? "USA"
        guard Self.isCountryCode(storefront) else { throw FakeAdminError.badRequest("storefront must be three capital letters (ISO 3166-1 alpha-3)") }
        if let orderId = request.orderId, !(1...64).contains(orderId.count) { throw FakeAdminError.badRequest("orderId must be 1-64 characters") }
        let customer = request.customer ?? "customer-1"
        let purchasedAt = request.purchaseDate ?? Self.milliseconds(now())
        return try state.withLock { state in
            let transactionId = request.transactionId ?? Self.newTransactionId(&state)
            guard !transactionId.isEmpty, transactionId.count <= 64 else { throw FakeAdminError.badRequest("transactionId must be 1-64 characters") }
            guard state.index[Self.key(environment, transactionId)] == nil else {
                throw FakeAdminError(409, "transaction \(transactionId) exists")
            }
            let orderId = try request.orderId.map { try Self.joinableOrder($0, customer: customer, environment: environment, in: state) }
                ?? Self.newOrderId(&state)
            let subscription = type == .autoRenewable
            let purchase = FakePurchase(
                transactionId: transactionId, originalTransactionId: transactionId,
                webOrderLineItemId: subscription ? Self.allocate(&state.nextWebOrder) : nil,
                productId: productId, type: type.rawValue,
                subscriptionGroupIdentifier: subscription ? (request.subscriptionGroupIdentifier ?? "group-1") : nil,
                customer: customer, environment: environment,
                purchaseDate: purchasedAt, originalPurchaseDate: purchasedAt,
                expiresDate: subscription || type == .nonRenewing ? purchasedAt + (request.expiresInSeconds ?? 30 * 86_400) * 1_000 : nil,
                quantity: quantity, appAccountToken: request.appAccountToken?.lowercased(), inAppOwnershipType: "PURCHASED",
                revocationDate: nil, revocationReason: nil, transactionReason: "PURCHASE",
                price: request.price ?? 990, currency: request.currency ?? "USD", storefront: storefront,
                storefrontId: Self.storefrontId(storefront), autoRenewStatus: subscription ? 1 : nil, orderId: orderId,
                appTransactionId: Self.appTransactionId(customer: customer, environment: environment, &state), renewalExtensions: nil)
            Self.insert(purchase, into: &state)
            return purchase
        }
    }

    /// The next period of an auto-renewable subscription: a new transaction with the same
    /// original transaction id, a new web order line item, starting where the last one expires.
    public func renew(originalTransactionId: String, environment: FakeEnvironment, expiresInSeconds: Int64? = nil) throws -> FakePurchase {
        try state.withLock { state in
            let periods = state.purchases.filter { $0.environment == environment && $0.originalTransactionId == originalTransactionId }
            guard let latest = periods.max(by: { $0.purchaseDate < $1.purchaseDate }) else {
                throw FakeAdminError.notFound("no transaction \(originalTransactionId) in \(environment.rawValue)")
            }
            guard latest.isSubscription else { throw FakeAdminError.badRequest("\(originalTransactionId) is not an auto-renewable subscription") }
            guard !latest.isRevoked else { throw FakeAdminError(409, "\(originalTransactionId) was revoked") }
            let start = max(latest.expiresDate ?? latest.purchaseDate, Self.milliseconds(now()))
            // The period's length: the latest's, or (when an expiry cut it short) the first's.
            let lengths = [latest, periods.min { $0.purchaseDate < $1.purchaseDate } ?? latest]
                .map { (($0.expiresDate ?? $0.purchaseDate) - $0.purchaseDate) / 1_000 }
            let period: Int64 = expiresInSeconds ?? lengths.first(where: { $0 > 0 }) ?? 0
            guard period > 0 else { throw FakeAdminError.badRequest("expiresInSeconds must be positive") }
            var next = latest
            // A downgrade or crossgrade waiting for this renewal takes effect; billing is settled.
            next.productId = latest.autoRenewProductId ?? latest.productId
            next.autoRenewProductId = nil
            next.isInBillingRetryPeriod = nil
            next.gracePeriodExpiresDate = nil
            next.expirationIntent = nil
            next.priceIncreaseStatus = nil
            next.offerType = nil
            next.offerIdentifier = nil
            next.transactionId = Self.newTransactionId(&state)
            next.webOrderLineItemId = Self.allocate(&state.nextWebOrder)
            next.purchaseDate = start
            next.expiresDate = start + period * 1_000
            next.transactionReason = "RENEWAL"
            next.orderId = Self.newOrderId(&state)
            Self.insert(next, into: &state)
            return next
        }
    }

    /// Apple refunded (REFUND) or family sharing ended (REVOKE): the transaction is revoked now.
    public func revoke(transactionId: String, environment: FakeEnvironment, reason: Int = 0) throws -> FakePurchase {
        guard reason == 0 || reason == 1 else { throw FakeAdminError.badRequest("reason must be 0 (other) or 1 (app issue)") }
        return try state.withLock { state in
            guard let position = state.index[Self.key(environment, transactionId)] else {
                throw FakeAdminError.notFound("no transaction \(transactionId) in \(environment.rawValue)")
            }
            guard state.purchases[position].revocationDate == nil else { throw FakeAdminError(409, "\(transactionId) is already revoked") }
            state.purchases[position].revocationDate = Self.milliseconds(now())
            state.purchases[position].revocationReason = reason
            state.purchases[position].autoRenewStatus = state.purchases[position].autoRenewStatus.map { _ in 0 }
            Self.touch(position, &state)
            return state.purchases[position]
        }
    }

    /// Apple reverses a refund: the transaction counts again.
    public func reinstate(transactionId: String, environment: FakeEnvironment) throws -> FakePurchase {
        try state.withLock { state in
            guard let position = state.index[Self.key(environment, transactionId)] else {
                throw FakeAdminError.notFound("no transaction \(transactionId) in \(environment.rawValue)")
            }
            guard state.purchases[position].revocationDate != nil else { throw FakeAdminError(409, "\(transactionId) is not refunded") }
            state.purchases[position].revocationDate = nil
            state.purchases[position].revocationReason = nil
            Self.touch(position, &state)
            return state.purchases[position]
        }
    }

    /// A family member gets the purchase through Family Sharing: a transaction of their own,
    /// owned `FAMILY_SHARED`.
    public func familyShare(transactionId: String, environment: FakeEnvironment, customer: String) throws -> FakePurchase {
        guard !customer.isEmpty, customer.count <= 200 else { throw FakeAdminError.badRequest("customer must be 1-200 characters") }
        return try state.withLock { state in
            guard let position = state.index[Self.key(environment, transactionId)] else {
                throw FakeAdminError.notFound("no transaction \(transactionId) in \(environment.rawValue)")
            }
            let original = state.purchases[position]
            guard original.inAppOwnershipType == "PURCHASED", original.type != FakeProductType.consumable.rawValue else {
                throw FakeAdminError.badRequest("only a purchased non-consumable or subscription can be family-shared")
            }
            guard original.customer != customer else { throw FakeAdminError.badRequest("the purchaser cannot share with themselves") }
            var shared = original
            shared.transactionId = Self.newTransactionId(&state)
            shared.originalTransactionId = shared.transactionId
            shared.webOrderLineItemId = original.webOrderLineItemId.map { _ in Self.allocate(&state.nextWebOrder) }
            shared.customer = customer
            shared.inAppOwnershipType = "FAMILY_SHARED"
            shared.appAccountToken = nil
            shared.purchaseDate = Self.milliseconds(now())
            shared.orderId = Self.newOrderId(&state)
            shared.appTransactionId = Self.appTransactionId(customer: customer, environment: environment, &state)
            shared.renewalExtensions = nil
            Self.insert(shared, into: &state)
            return shared
        }
    }

    public func transaction(_ transactionId: String, in environment: FakeEnvironment) -> FakePurchase? {
        state.withLock { state in state.index[Self.key(environment, transactionId)].map { state.purchases[$0] } }
    }

    /// Every transaction of the customer who owns `transactionId`, oldest first (Apple's history
    /// answers for the customer, whichever of their transactions is asked about).
    func history(ofCustomerOwning transactionId: String, in environment: FakeEnvironment) -> [FakePurchase]? {
        state.withLock { state in
            guard let position = state.index[Self.key(environment, transactionId)] else { return nil }
            let customer = state.purchases[position].customer
            return state.purchases
                .filter { $0.environment == environment && $0.customer == customer }
                .sorted { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) }
        }
    }

    /// The customer's transactions in Apple's history order (oldest modification first), each with
    /// its modification number: what Get Transaction History v2 pages through.
    func modifiedHistory(ofCustomerOwning transactionId: String, in environment: FakeEnvironment) -> [(purchase: FakePurchase, modified: Int64)]? {
        state.withLock { state in
            guard let position = state.index[Self.key(environment, transactionId)] else { return nil }
            let customer = state.purchases[position].customer
            return state.purchases.indices
                .filter { state.purchases[$0].environment == environment && state.purchases[$0].customer == customer }
                .map { (state.purchases[$0], state.modified[$0]) }
                .sorted { $0.modified < $1.modified }
        }
    }

    /// Every purchase, in the order made.
    public func all() -> [FakePurchase] {
        state.withLock { $0.purchases }
    }

    static func insert(_ purchase: FakePurchase, into state: inout State) {
        state.index[key(purchase.environment, purchase.transactionId)] = state.purchases.count
        state.purchases.append(purchase)
        state.modified.append(0)
        touch(state.purchases.count - 1, &state)
    }

    /// The purchase at `position` changed: it moves to the end of the modification order.
    static func touch(_ position: Int, _ state: inout State) {
        state.modified[position] = state.nextModification
        state.nextModification += 1
    }

    /// The next free id (an admin request may have taken one by naming it).
    static func newTransactionId(_ state: inout State) -> String {
        while true {
            let id = allocate(&state.nextTransaction)
            if FakeEnvironment.allCases.allSatisfy({ state.index[key($0, id)] == nil }) { return id }
        }
    }

    static func allocate(_ counter: inout Int64) -> String {
        defer { counter += 1 }
        return String(counter)
    }

    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1_000).rounded(.down))
    }
}
