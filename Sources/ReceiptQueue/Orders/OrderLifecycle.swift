import Foundation

/// Where a registered order is; how it moves is `OrderLifecycle`.
public enum OrderState: String, Sendable, CaseIterable, Codable, QueueState {
    /// Registered by the backend, waiting for its purchase.
    case pending
    /// A grant matched it (`LedgerDecision`, written by `RecordPurchases`).
    case fulfilled
    /// The backend gave it up (no command writes it today; the schema allows it).
    case cancelled

    /// Orders are not leased: the ledger's transaction fulfils one under its row lock.
    public static var leased: OrderState? { nil }

    public var isTerminal: Bool { self != .pending }
}

/// The orders' state machine (`receiptq.orders`): pending → fulfilled, once, by the grant that
/// matches it — decided by `LedgerDecision` through `next`, written by `RecordPurchases` inside the
/// ledger's transaction, and checked against this spec by `OrderAgreementTests`. Pure.
public struct OrderLifecycle: Sendable, Equatable, QueueLifecycle {
    public enum Event: Sendable, Hashable {
        /// A new grant names the order (its order id, or Apple's appAccountToken), or falls back
        /// to the user's oldest pending order for the product.
        case fulfil
    }

    public struct Facts: Sendable, Equatable {
        public init() {}
    }

    public static let table = QueueTable(name: "receiptq.orders", key: ["order_id"], stateCheck: "orders_state_check")

    public init() {}

    public func next(_ state: OrderState, on event: Event, facts: Facts, now: Date) -> OrderState? {
        switch (state, event) {
        case (.pending, .fulfil): return .fulfilled
        default: return nil
        }
    }
}
