import Foundation

/// Orders, app transactions and app account tokens: what Look Up Order ID, Get App Transaction
/// Info and Set App Account Token read and change.
extension FakePurchases {
    /// The customer's app download, as Get App Transaction Info describes it.
    public struct AppTransaction: Sendable, Equatable {
        public var appTransactionId: String
        public var customer: String
        public var environment: FakeEnvironment
        /// The customer's first purchase stands in for the download date.
        public var originalPurchaseDate: Int64
        /// The app version the customer first downloaded: "1" unless a test set another
        /// (`downloadApp`), e.g. to stand for a customer who paid for the app before it went free.
        public var originalApplicationVersion: String = "1"
    }

    /// Why Set App Account Token refuses a transaction (Apple's error codes are the endpoint's).
    enum AppAccountTokenRefusal: Error, Equatable {
        case notFound
        case notOriginal
        case familyShared
    }

    /// Every transaction of order `orderId` in `environment`, oldest first; empty when there is none.
    func order(_ orderId: String, in environment: FakeEnvironment) -> [FakePurchase] {
        state.withLock { state in
            state.purchases.filter { $0.environment == environment && $0.orderId == orderId }
                .sorted { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) }
        }
    }

    /// Sets `token` on the purchase whose original transaction id is `originalTransactionId` — on
    /// every period of a subscription, so later renewals and signed data carry it. Returns the
    /// updated latest transaction.
    func setAppAccountToken(_ token: UUID, originalTransactionId: String, in environment: FakeEnvironment) throws(AppAccountTokenRefusal) -> FakePurchase {
        let result: Result<FakePurchase, AppAccountTokenRefusal> = state.withLock { state in
            guard let position = state.index[Self.key(environment, originalTransactionId)] else { return .failure(.notFound) }
            let named = state.purchases[position]
            guard named.originalTransactionId == originalTransactionId else { return .failure(.notOriginal) }
            guard named.inAppOwnershipType == "PURCHASED" else { return .failure(.familyShared) }
            var latest = named
            for index in state.purchases.indices
            where state.purchases[index].environment == environment && state.purchases[index].originalTransactionId == originalTransactionId {
                state.purchases[index].appAccountToken = token.uuidString.lowercased()
                Self.touch(index, &state)
                if state.purchases[index].purchaseDate >= latest.purchaseDate { latest = state.purchases[index] }
            }
            return .success(latest)
        }
        return try result.get()
    }

    /// The app transaction of the customer that `id` (a transaction, original transaction or app
    /// transaction id) belongs to; `nil` when `id` names nothing in `environment`.
    public func appTransaction(for id: String, in environment: FakeEnvironment) -> AppTransaction? {
        state.withLock { state in
            let customer: String
            if let position = state.index[Self.key(environment, id)] {
                customer = state.purchases[position].customer
            } else if let entry = state.appTransactions.first(where: { $0.value == id && $0.key.hasPrefix(environment.rawValue + "/") }) {
                customer = String(entry.key.dropFirst(environment.rawValue.count + 1))
            } else {
                return nil
            }
            return Self.appTransaction(customer: customer, environment: environment, state, now: now())
        }
    }

    /// The customer's app transaction: the one their purchases carry, or a new one for a customer
    /// who only downloaded the app. `originalApplicationVersion`, when given, is the version they
    /// first downloaded from then on.
    public func downloadApp(customer: String, environment: FakeEnvironment, originalApplicationVersion: String? = nil) -> AppTransaction {
        state.withLock { state in
            let key = Self.key(environment, customer)
            let downloaded = state.appDownloads[key]
            // Apple's original purchase date never moves: a customer who bought before keeps the
            // first purchase's, as Get App Transaction Info answered it until now.
            let firstPurchase = state.purchases.filter { $0.environment == environment && $0.customer == customer }.map(\.purchaseDate).min()
            state.appDownloads[key] = (originalApplicationVersion ?? downloaded?.version ?? "1",
                                       downloaded?.date ?? firstPurchase ?? Self.milliseconds(now()))
            _ = Self.appTransactionId(customer: customer, environment: environment, &state)
            return Self.appTransaction(customer: customer, environment: environment, state, now: now())!
        }
    }

    static func appTransaction(customer: String, environment: FakeEnvironment, _ state: State, now: Date) -> AppTransaction? {
        let key = Self.key(environment, customer)
        guard let appTransactionId = state.appTransactions[key] else { return nil }
        let first = state.purchases.filter { $0.environment == environment && $0.customer == customer }.map(\.purchaseDate).min()
        let download = state.appDownloads[key]
        return AppTransaction(appTransactionId: appTransactionId, customer: customer, environment: environment,
                              originalPurchaseDate: download?.date ?? first ?? Self.milliseconds(now),
                              originalApplicationVersion: download?.version ?? "1")
    }

    /// Marks `id` finished by the server (Finish Transaction); false when the fake does not know it.
    public func finish(_ id: String, in environment: FakeEnvironment) -> Bool {
        state.withLock { state in
            let key = Self.key(environment, id)
            guard state.index[key] != nil else { return false }
            state.finished.insert(key)
            return true
        }
    }

    /// Whether the server finished `id` (Finish Transaction).
    public func isFinished(_ id: String, in environment: FakeEnvironment = .production) -> Bool {
        state.withLock { $0.finished.contains(Self.key(environment, id)) }
    }

    // MARK: - Allocation (under the state lock)

    /// `orderId` when it is new or already the same customer's in `environment`.
    static func joinableOrder(_ orderId: String, customer: String, environment: FakeEnvironment, in state: State) throws -> String {
        let owners = Set(state.purchases.filter { $0.environment == environment && $0.orderId == orderId }.map(\.customer))
        guard owners.isEmpty || owners == [customer] else { throw FakeAdminError(409, "order \(orderId) belongs to another customer") }
        return orderId
    }

    /// Ten characters like Apple's (`MQ` and eight base-36 digits), never one already used.
    static func newOrderId(_ state: inout State) -> String {
        while true {
            let digits = String(state.nextOrder, radix: 36, uppercase: true)
            state.nextOrder += 1
            let id = "MQ" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
            if !state.purchases.contains(where: { $0.orderId == id }) { return id }
        }
    }

    /// The customer's app transaction id in `environment`, made at their first purchase.
    static func appTransactionId(customer: String, environment: FakeEnvironment, _ state: inout State) -> String {
        let key = Self.key(environment, customer)
        if let id = state.appTransactions[key] { return id }
        let id = allocate(&state.nextAppTransaction)
        state.appTransactions[key] = id
        return id
    }

    static func isCountryCode(_ text: String) -> Bool {
        text.count == 3 && text.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) }
    }

    /// Apple's storefront ids for a few countries; any other gets a stable made-up one.
    static func storefrontId(_ countryCode: String) -> String {
        let known = ["USA": "143441", "FRA": "143442", "DEU": "143443", "GBR": "143444", "CAN": "143455", "JPN": "143462", "CHN": "143465"]
        return known[countryCode] ?? String(140_000 + countryCode.unicodeScalars.reduce(0) { $0 * 26 + Int($1.value) - 65 } % 10_000)
    }
}
