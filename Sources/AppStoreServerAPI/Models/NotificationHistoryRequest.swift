import Foundation

/// Get Notification History's body. Apple keeps 180 days; `startDate` must precede `endDate`; give
/// `transactionId` or `notificationType`, not both.
public struct NotificationHistoryRequest: Encodable, Sendable, Hashable {
    public var startDate: Date
    public var endDate: Date
    public var notificationType: String?
    public var notificationSubtype: String?
    public var transactionId: String?
    /// Only notifications that have not reached the server yet (including those still retried).
    public var onlyFailures: Bool?

    public init(startDate: Date, endDate: Date, notificationType: String? = nil, notificationSubtype: String? = nil,
                transactionId: String? = nil, onlyFailures: Bool? = nil) {
        self.startDate = startDate
        self.endDate = endDate
        self.notificationType = notificationType
        self.notificationSubtype = notificationSubtype
        self.transactionId = transactionId
        self.onlyFailures = onlyFailures
    }

    enum CodingKeys: String, CodingKey {
        case startDate, endDate, notificationType, notificationSubtype, transactionId, onlyFailures
    }

    /// Dates travel as milliseconds since 1970, as every Apple timestamp.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(startDate.serverAPIMilliseconds, forKey: .startDate)
        try c.encode(endDate.serverAPIMilliseconds, forKey: .endDate)
        try c.encodeIfPresent(notificationType, forKey: .notificationType)
        try c.encodeIfPresent(notificationSubtype, forKey: .notificationSubtype)
        try c.encodeIfPresent(transactionId, forKey: .transactionId)
        try c.encodeIfPresent(onlyFailures, forKey: .onlyFailures)
    }
}
