import Foundation

/// A notification Apple signed, as the API (or the history recovery) commits it: the fields the
/// queue orders and deduplicates by, beside Apple's signed payload kept whole.
public struct NewNotification: Sendable, Hashable {
    /// Where a notification came from.
    public enum Source: String, Sendable, Hashable {
        /// Apple POSTed it to the API.
        case endpoint
        /// Get Notification History had it and we did not (a gap recovered).
        case history
        /// `receiptq notifications test` asked for it.
        case test
    }

    /// Apple's `notificationUUID`: its retries repeat it, so it is the deduplication key.
    public var uuid: UUID
    public var type: String
    public var subtype: String?
    /// Production or Sandbox.
    public var environment: String
    /// Apple's `signedDate`: the order in which a purchase's notifications are applied.
    public var signedDate: Date
    public var originalTransactionID: String?
    public var transactionID: String?
    /// `signedPayload` as Apple sent it. Never logged.
    public var signedPayload: String
    public var source: Source
    /// Apple signed it, but this configuration refused it (another bundle id, app id,
    /// environment, or a root not configured): it is kept `quarantined` with this reason, never
    /// applied until re-driven once the configuration is fixed. nil: queued to be applied.
    public var quarantineReason: String?

    public init(uuid: UUID, type: String, subtype: String?, environment: String, signedDate: Date,
                originalTransactionID: String?, transactionID: String?, signedPayload: String, source: Source,
                quarantineReason: String? = nil) {
        self.quarantineReason = quarantineReason
        self.uuid = uuid
        self.type = type
        self.subtype = subtype
        self.environment = environment
        self.signedDate = signedDate
        self.originalTransactionID = originalTransactionID
        self.transactionID = transactionID
        self.signedPayload = signedPayload
        self.source = source
    }
}
