import Foundation

/// A claimed CONSUMPTION_REQUEST with what the ledger knows to answer it: whether the customer
/// consented, and the facts Send Consumption Information asks for. (`notificationUUID`,
/// `attempt`) fences its completion.
public struct ConsumptionLease: Sendable, Hashable {
    public var notificationUUID: UUID
    public var attempt: Int
    public var transactionID: String
    /// Production or Sandbox.
    public var environment: String
    public var deadline: Date
    public var userID: String?
    /// nil: the backend never recorded an answer for this user.
    public var consented: Bool?
    /// The transaction's grant, when ReceiptQueue granted it.
    public var grantedAt: Date?
    public var revoked: Bool
    public var appAccountToken: UUID?
    /// The user's first grant: how long they have been a customer.
    public var firstGrantAt: Date?
    /// Sums of the user's grants' prices in US dollars (Apple reports milliunits); grants in other
    /// currencies are not converted, so these are lower bounds.
    public var dollarsPurchased: Double
    public var dollarsRefunded: Double

    public init(notificationUUID: UUID, attempt: Int, transactionID: String, environment: String, deadline: Date, userID: String?,
                consented: Bool?, grantedAt: Date?, revoked: Bool, appAccountToken: UUID?, firstGrantAt: Date?,
                dollarsPurchased: Double, dollarsRefunded: Double) {
        self.notificationUUID = notificationUUID
        self.attempt = attempt
        self.transactionID = transactionID
        self.environment = environment
        self.deadline = deadline
        self.userID = userID
        self.consented = consented
        self.grantedAt = grantedAt
        self.revoked = revoked
        self.appAccountToken = appAccountToken
        self.firstGrantAt = firstGrantAt
        self.dollarsPurchased = dollarsPurchased
        self.dollarsRefunded = dollarsRefunded
    }
}
