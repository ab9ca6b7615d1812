/// What the tables of a customer's story show — the customer, purchase, search, order and job
/// pages (`CustomerView`'s sections, `ConsoleQueries`' job and search reads, Apple's answers):
/// columns in the order support reads them, under labels a person reads. One spec per table.
enum ConsoleStoryTables {
    typealias C = ConsoleColumn

    /// A purchase's grants, whoever holds them; on a customer's page without the holder.
    static let grants = [
        C("product_id", "Product", .code), C("product_type", "Type"), C("purchase_key", "Purchase key", .code),
        C("original_transaction_id", "Purchase", .link(.purchase)), C("transaction_id", "Transaction", .code),
        C("user_id", "Customer", .link(.customer)), C("environment", "Environment"), C("ownership_type", "Ownership"),
        C("purchase_date", "Purchased", .time), C("expires_date", "Expires", .time), C("granted_at", "Granted", .time),
        C("revoked_at", "Revoked", .time), C("revocation_reason", "Revocation reason", .prose),
        C("manual_by", "Granted by hand by", .code), C("job_id", "Job", .link(.job)),
    ]
    static let customerGrants = grants.filter { $0.key != "user_id" }

    /// `ListEntitlements` (Foundation's keys): what the customer is entitled to now.
    static let entitlements = [
        C("entitlements", "Unlocks", .list), C("productID", "Product", .code), C("productType", "Type"),
        C("subscriptionState", "Subscription", .state), C("expiresDate", "Expires", .time),
        C("gracePeriodExpiresDate", "Grace period ends", .time), C("autoRenewStatus", "Auto-renew", .flag(yes: "on", no: "off")),
        C("renewsToProductID", "Renews to", .code), C("purchaseDate", "Purchased", .time),
        C("originalTransactionID", "Purchase", .link(.purchase)), C("transactionID", "Transaction", .code),
        C("ownershipType", "Ownership"), C("environment", "Environment"), C("orderID", "Order", .code),
    ]
    static let subscriptions = [
        C("product_id", "Product", .code), C("state", "State", .state), C("expires_date", "Expires", .time),
        C("auto_renew_status", "Auto-renew", .flag(yes: "on", no: "off")), C("grace_period_expires_date", "Grace period ends", .time),
        C("renews_to_product_id", "Renews to", .code), C("expiration_reason", "Expiration reason"), C("status", "Apple status", .code),
        C("revoked_at", "Revoked", .time), C("original_transaction_id", "Purchase", .link(.purchase)),
        C("user_id", "Customer", .link(.customer)), C("environment", "Environment"), C("last_source", "Last news from"),
        C("updated_at", "Updated", .time),
    ]
    static let orders = [
        C("order_id", "Order", .code), C("product_id", "Product", .code), C("state", "State", .state),
        C("created_at", "Created", .time), C("fulfilled_at", "Fulfilled", .time), C("app_account_token", "App account token", .code),
    ]
    static let jobs = [
        C("id", "Job", .link(.job)), C("state", "State", .state), C("kind", "Kind"), C("product_id", "Product", .code),
        C("transaction_id", "Transaction", .code), C("user_id", "Customer", .link(.customer)), C("attempts", "Attempts", .number),
        C("apple_status", "Apple status", .code), C("outcome_reason", "Outcome", .prose), C("last_error", "Last error", .prose),
        C("created_at", "Submitted", .time), C("finished_at", "Finished", .time), C("run_at", "Next run", .time),
        C("order_id", "Order", .code), C("apple_environment", "Apple environment"), C("locked_by", "Leased by", .code),
    ]
    static let customerJobs = jobs.filter { $0.key != "user_id" }
    static let notifications = [
        C("notification_type", "Type"), C("subtype", "Subtype"), C("state", "State", .state), C("outcome", "Outcome", .prose),
        C("transaction_id", "Transaction", .code), C("original_transaction_id", "Purchase", .link(.purchase)),
        C("attempts", "Attempts", .number), C("last_error", "Last error", .prose), C("signed_date", "Signed by Apple", .time),
        C("received_at", "Received", .time), C("applied_at", "Applied", .time), C("environment", "Environment"),
        C("source", "Source"), C("notification_uuid", "Notification", .code),
    ]
    static let deliveries = [
        C("endpoint_id", "Endpoint", .code), C("event_sequence", "Event", .code), C("state", "State", .state),
        C("attempts", "Attempts", .number), C("last_status", "Last HTTP status", .code), C("last_error", "Last error", .prose),
        C("created_at", "Created", .time), C("delivered_at", "Delivered", .time), C("user_id", "Customer", .link(.customer)),
    ]
    static let audit = [
        C("at", "When", .time), C("actor", "Operator", .code), C("action", "Action", .code),
        C("subject", "Subject", .link(.subject)), C("why", "Why", .prose), C("id", "#", .code),
    ]

    /// Search and the order page: grants found in the ledger.
    static let ledgerGrants = [
        C("user_id", "Customer", .link(.customer)), C("product_id", "Product", .code),
        C("original_transaction_id", "Purchase", .link(.purchase)), C("transaction_id", "Transaction", .code),
        C("purchase_key", "Purchase key", .code), C("granted_at", "Granted", .time), C("revoked_at", "Revoked", .time),
        C("manual_by", "Granted by hand by", .code),
    ]
    static let searchJobs = [
        C("id", "Job", .link(.job)), C("state", "State", .state), C("kind", "Kind"), C("user_id", "Customer", .link(.customer)),
        C("transaction_id", "Transaction", .code), C("order_id", "Order", .code), C("created_at", "Submitted", .time),
    ]
    static let searchOrders = [
        C("order_id", "Order", .code), C("user_id", "Customer", .link(.customer)), C("product_id", "Product", .code),
        C("state", "State", .state), C("created_at", "Created", .time),
    ]
    /// Apple's verified transactions (Look Up Order ID): its keys, its dates in milliseconds.
    static let appleTransactions = [
        C("transactionId", "Transaction", .code), C("originalTransactionId", "Purchase", .link(.purchase)),
        C("productId", "Product", .code), C("type", "Type"), C("purchaseDate", "Purchased", .time),
        C("expiresDate", "Expires", .time), C("revocationDate", "Revoked", .time), C("revocationReason", "Revocation reason", .code),
        C("inAppOwnershipType", "Ownership"), C("environment", "Environment"),
    ]

    /// A job's own fields, the story first, the bookkeeping after.
    static let job = [
        C("state", "State", .state), C("kind", "Kind"), C("user_id", "Customer", .link(.customer)), C("product_id", "Product", .code),
        C("transaction_id", "Transaction", .code), C("order_id", "Order", .code), C("purchase_key", "Purchase key", .code),
        C("attempts", "Attempts", .number), C("apple_status", "Apple status", .code), C("apple_environment", "Apple environment"),
        C("outcome_reason", "Outcome", .prose), C("last_error", "Last error", .prose),
        C("created_at", "Submitted", .time), C("updated_at", "Updated", .time), C("run_at", "Next run", .time),
        C("finished_at", "Finished", .time), C("redriven_at", "Re-driven", .time),
        C("locked_by", "Leased by", .code), C("locked_until", "Lease ends", .time),
        C("superseded_by", "Superseded by", .link(.job)), C("trusted_claim", "Trusted claim", .flag(yes: "yes", no: "no")),
        C("id", "Job", .code),
    ]
    static let jobGrant = [
        C("product_id", "Product", .code), C("purchase_key", "Purchase key", .code), C("user_id", "Customer", .link(.customer)),
        C("original_transaction_id", "Purchase", .link(.purchase)), C("granted_at", "Granted", .time), C("revoked_at", "Revoked", .time),
    ]
    static let jobEvents = [
        C("sequence", "Event", .code), C("type", "Type", .code), C("created_at", "Created", .time),
        C("user_id", "Customer", .link(.customer)), C("purchase_key", "Purchase key", .code), C("body", "Body", .json),
        C("id", "Event id", .code),
    ]
    static let jobDeliveries = [
        C("endpoint_id", "Endpoint", .code), C("event_sequence", "Event", .code), C("state", "State", .state),
        C("attempts", "Attempts", .number), C("last_status", "Last HTTP status", .code), C("last_error", "Last error", .prose),
        C("delivered_at", "Delivered", .time),
    ]
}
