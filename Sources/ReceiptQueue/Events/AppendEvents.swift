import Postgres

/// An event that is not a job's verdict: a refund, a reinstatement, a subscription's change, a
/// consumption request. `data` is the JSON object backends receive as the event's `data`.
public struct NewEvent: Sendable, Hashable {
    public var type: EventType
    public var userID: String
    public var purchaseKey: String?
    /// A JSON object, as built by the statement that made the change.
    public var data: String

    public init(type: EventType, userID: String, purchaseKey: String? = nil, data: String) {
        self.type = type
        self.userID = userID
        self.purchaseKey = purchaseKey
        self.data = data
    }
}

/// Appends events inside the caller's transaction (the one that made their changes), in commit
/// order; the `events_fan_out` trigger fans them out to webhook deliveries. Run last, just before
/// committing.
public enum AppendEvents {
    static let sql = """
        INSERT INTO receiptq.events (type, user_id, purchase_key, body)
        SELECT type, user_id, purchase_key, data::jsonb
        FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS e(type, user_id, purchase_key, data, ord)
        ORDER BY ord
        """

    public static func run(_ events: [NewEvent], on connection: PostgresConnection) throws {
        guard !events.isEmpty else { return }
        try AppendJobEvents.lockEventOrder(on: connection)
        // Prepared: a handful of events at a time (a notification's, a subscription change's),
        // and the plan of an ordered insert from unnest does not depend on how many.
        try connection.query(prepared: sql, [events.map(\.type.rawValue), events.map(\.userID), events.map(\.purchaseKey), events.map(\.data)])
    }
}
