/// Every leased queue's spec, type-erased for checks that run over all of them (the schema
/// agrees with each spec's states and lease: `QueueSchemaTests`).
public enum QueueCatalog {
    /// One queue as the schema checks see it.
    public struct Entry: Sendable {
        public var table: QueueTable
        public var states: [String]
        public var terminal: [String]
        public var leased: String?
    }

    public static func entry<Spec: QueueLifecycle>(_ spec: Spec.Type) -> Entry {
        Entry(table: Spec.table, states: Spec.State.allCases.map(\.rawValue),
              terminal: Spec.State.allCases.filter(\.isTerminal).map(\.rawValue), leased: Spec.State.leased?.rawValue)
    }

    /// Jobs, notifications, webhook deliveries, consumption requests, orders, history syncs.
    public static let all: [Entry] = [
        entry(JobLifecycle.self), entry(NotificationLifecycle.self), entry(DeliveryLifecycle.self),
        entry(ConsumptionLifecycle.self), entry(OrderLifecycle.self), entry(HistorySyncLifecycle.self),
    ]
}
