/// Apple's verifyReceipt status codes that this code treats specially (DESIGN.md has the table).
public enum VerifyReceiptStatus {
    /// The receipt is valid.
    public static let valid = 0
    /// The App Store could not read the JSON we sent: our bug.
    public static let unreadableRequest = 21_000
    /// Malformed receipt data or a temporary issue.
    public static let malformedOrTemporary = 21_002
    /// The receipt could not be authenticated.
    public static let notAuthentic = 21_003
    /// The shared secret does not match the account's.
    public static let sharedSecretMismatch = 21_004
    /// The receipt server was temporarily unable to provide the receipt.
    public static let serverUnavailable = 21_005
    /// Valid, but the subscription has expired.
    public static let validSubscriptionExpired = 21_006
    /// A sandbox receipt was sent to production.
    public static let sandboxReceiptOnProduction = 21_007
    /// A production receipt was sent to the sandbox.
    public static let productionReceiptOnSandbox = 21_008
    /// Internal data access error.
    public static let internalDataAccess = 21_009
    /// The user account cannot be found or has been deleted.
    public static let accountNotFound = 21_010
    /// Internal data access errors, 21100 through 21199; Apple's `is_retryable` says whether to retry.
    public static let internalErrors = 21_100...21_199
}
