import Foundation

/// A claimed notification: the worker `lockedBy` holds it until its lease ends. (`uuid`,
/// `attempt`) fences every completion, as for jobs.
public struct NotificationLease: Sendable, Hashable {
    public var uuid: UUID
    public var attempt: Int
    public var type: String
    public var subtype: String?
    public var environment: String
    public var signedDate: Date
    public var source: NewNotification.Source
    /// Apple's signed payload, verified again before it is applied. Never logged.
    public var signedPayload: String
    public var receivedAt: Date

    public init(uuid: UUID, attempt: Int, type: String, subtype: String?, environment: String, signedDate: Date,
                source: NewNotification.Source, signedPayload: String, receivedAt: Date) {
        self.uuid = uuid
        self.attempt = attempt
        self.type = type
        self.subtype = subtype
        self.environment = environment
        self.signedDate = signedDate
        self.source = source
        self.signedPayload = signedPayload
        self.receivedAt = receivedAt
    }
}
