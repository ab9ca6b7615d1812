import Foundation

/// A request to extend renewal dates for all active subscribers of a product, as the fake keeps
/// it for Get Status of Subscription Renewal Date Extensions. The fake completes it at once.
public struct FakeMassExtension: Codable, Sendable, Equatable {
    public var requestIdentifier: String
    public var productId: String
    public var environment: FakeEnvironment
    public var completeDate: Int64
    public var succeededCount: Int
    public var failedCount: Int
}

/// What a renewal-date extension asks for, validated by the endpoint.
struct FakeExtensionRequest: Sendable, Equatable {
    var extendByDays: Int
    var extendReasonCode: Int
    var requestIdentifier: String
}

/// Extending renewal dates, with Apple's eligibility rules: an active (unexpired, unrevoked)
/// auto-renewable subscription the customer bought (not one family-shared to them), at most two
/// extensions within 365 days. The latest period's expiry moves; later signed data shows it.
extension FakePurchases {
    enum ExtensionRefusal: Error, Equatable {
        case notFound
        /// Not an active auto-renewable subscription.
        case ineligible
        case maximumReached
        case familyShared
    }

    static let maximumExtensionsPerYear = 2
    static let year: Int64 = 365 * 86_400_000

    /// Extends the subscription `originalTransactionId`; the same `requestIdentifier` again
    /// answers what the first request did without extending twice. Returns the latest period
    /// and whether it was extended now.
    func extend(originalTransactionId: String, in environment: FakeEnvironment,
                _ request: FakeExtensionRequest) throws(ExtensionRefusal) -> (latest: FakePurchase, extended: Bool) {
        let now = Self.milliseconds(self.now())
        let result: Result<(FakePurchase, Bool), ExtensionRefusal> = state.withLock { state in
            guard let position = Self.latestPeriod(originalTransactionId, environment, state) else { return .failure(.notFound) }
            let latest = state.purchases[position]
            if latest.renewalExtensions?.contains(where: { $0.requestIdentifier == request.requestIdentifier && !$0.mass }) == true {
                return .success((latest, false))
            }
            guard latest.isSubscription else { return .failure(.ineligible) }
            guard latest.inAppOwnershipType == "PURCHASED" else { return .failure(.familyShared) }
            if let refusal = Self.refusal(latest, now: now) { return .failure(refusal) }
            Self.applyExtension(at: position, request, mass: false, now: now, &state)
            return .success((state.purchases[position], true))
        }
        return try result.get()
    }

    /// Extends every active subscription to `productId` in `environment` (optionally only in
    /// `storefronts`), completes at once and returns the request's status; the same
    /// `requestIdentifier` for the same product again returns the first status unchanged.
    /// Returns the extended latest periods too (for the notifications Apple would send).
    func massExtend(productId: String, storefronts: [String]?, in environment: FakeEnvironment,
                    _ request: FakeExtensionRequest) -> (status: FakeMassExtension, extended: [FakePurchase]) {
        let now = Self.milliseconds(self.now())
        return state.withLock { state in
            let key = [environment.rawValue, productId, request.requestIdentifier].joined(separator: "/")
            if let done = state.massExtensions[key] { return (done, []) }
            var status = FakeMassExtension(requestIdentifier: request.requestIdentifier, productId: productId, environment: environment,
                                           completeDate: now, succeededCount: 0, failedCount: 0)
            var extended: [FakePurchase] = []
            let originals = Set(state.purchases.filter { $0.environment == environment && $0.isSubscription }.map(\.originalTransactionId))
            for original in originals.sorted() {
                guard let position = Self.latestPeriod(original, environment, state) else { continue }
                let latest = state.purchases[position]
                guard latest.productId == productId, latest.expiresDate ?? 0 > now, !latest.isRevoked,
                      storefronts.map({ $0.contains(latest.storefront) }) ?? true else { continue }
                if Self.refusal(latest, now: now) != nil {
                    status.failedCount += 1
                } else {
                    Self.applyExtension(at: position, request, mass: true, now: now, &state)
                    status.succeededCount += 1
                    extended.append(state.purchases[position])
                }
            }
            state.massExtensions[key] = status
            return (status, extended)
        }
    }

    func massExtension(productId: String, requestIdentifier: String, in environment: FakeEnvironment) -> FakeMassExtension? {
        state.withLock { $0.massExtensions[[environment.rawValue, productId, requestIdentifier].joined(separator: "/")] }
    }

    private static func latestPeriod(_ originalTransactionId: String, _ environment: FakeEnvironment, _ state: State) -> Int? {
        state.purchases.indices
            .filter { state.purchases[$0].environment == environment && state.purchases[$0].originalTransactionId == originalTransactionId }
            .max { state.purchases[$0].purchaseDate < state.purchases[$1].purchaseDate }
    }

    /// Why an active-looking subscription cannot be extended now, or `nil`.
    private static func refusal(_ latest: FakePurchase, now: Int64) -> ExtensionRefusal? {
        guard !latest.isRevoked, let expires = latest.expiresDate, expires > now else { return .ineligible }
        let recent = (latest.renewalExtensions ?? []).filter { $0.grantedAt > now - year }
        return recent.count >= maximumExtensionsPerYear ? .maximumReached : nil
    }

    private static func applyExtension(at position: Int, _ request: FakeExtensionRequest, mass: Bool, now: Int64, _ state: inout State) {
        let effective = (state.purchases[position].expiresDate ?? now) + Int64(request.extendByDays) * 86_400_000
        state.purchases[position].expiresDate = effective
        state.purchases[position].renewalExtensions = (state.purchases[position].renewalExtensions ?? []) + [FakeRenewalExtension(
            requestIdentifier: request.requestIdentifier, extendByDays: request.extendByDays, extendReasonCode: request.extendReasonCode,
            grantedAt: now, effectiveDate: effective, mass: mass)]
        touch(position, &state)
    }
}
