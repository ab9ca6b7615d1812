import Foundation

/// A claimed history sync. (`originalTransactionID`, `environment`, `attempt`) and the worker's
/// name fence every page and the end.
public struct HistorySyncLease: Sendable, Hashable {
    public var originalTransactionID: String
    /// Production or Sandbox.
    public var environment: String
    public var attempt: Int
    /// The user a request named; nil: the ledger's owner of each purchase.
    public var userID: String?
    /// Where the walk starts: Apple's revision after the last page imported (nil: the beginning).
    public var revision: String?

    public init(originalTransactionID: String, environment: String, attempt: Int, userID: String?, revision: String?) {
        self.originalTransactionID = originalTransactionID
        self.environment = environment
        self.attempt = attempt
        self.userID = userID
        self.revision = revision
    }
}
