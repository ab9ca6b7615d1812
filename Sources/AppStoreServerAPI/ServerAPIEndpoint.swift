/// The App Store Server API endpoints this client calls. Apple limits requests per app **and per
/// endpoint**, so the endpoint is part of every rate budget's key; `rawValue` is that key (stable:
/// it is stored in `receiptq.api_rate_budgets`).
public enum ServerAPIEndpoint: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `GET /inApps/v1/transactions/{transactionId}`
    case getTransactionInfo = "get_transaction_info"
    /// `GET /inApps/v2/history/{transactionId}`
    case getTransactionHistory = "get_transaction_history"
    /// `GET /inApps/v1/subscriptions/{transactionId}`
    case getAllSubscriptionStatuses = "get_all_subscription_statuses"
    /// `GET /inApps/v2/refund/lookup/{transactionId}`
    case getRefundHistory = "get_refund_history"
    /// `POST /inApps/v1/notifications/history`
    case getNotificationHistory = "get_notification_history"
    /// `PUT /inApps/v2/transactions/consumption/{transactionId}` (Send Consumption Information v2)
    case sendConsumptionInformation = "send_consumption_information"
    /// `POST /inApps/v1/notifications/test`
    case requestTestNotification = "request_test_notification"
    /// `GET /inApps/v1/notifications/test/{testNotificationToken}`
    case getTestNotificationStatus = "get_test_notification_status"
    /// `GET /inApps/v1/lookup/{orderId}` (Look Up Order ID: the order id on the customer's receipt e-mail)
    case lookUpOrderId = "look_up_order_id"
    /// `PUT /inApps/v1/subscriptions/extend/{originalTransactionId}`
    case extendSubscriptionRenewalDate = "extend_subscription_renewal_date"
    /// `POST /inApps/v1/subscriptions/extend/mass`
    case massExtendRenewalDate = "extend_renewal_date_for_all_active_subscribers"
    /// `GET /inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}`
    case massExtensionStatus = "get_status_of_subscription_renewal_date_extensions"
    /// `PUT /inApps/v1/transactions/{originalTransactionId}/appAccountToken`
    case setAppAccountToken = "set_app_account_token"
    /// `GET /inApps/v1/transactions/appTransactions/{transactionId}` (the customer's app transaction)
    case getAppTransactionInfo = "get_app_transaction_info"
    /// `POST /inApps/v1/transactions/{transactionId}/finish`
    case finishTransaction = "finish_transaction"

    /// Apple's published production limit, in requests per second per app ("Identifying rate
    /// limits"; enforced over an hour). The sandbox gets 10% of it.
    public var productionRequestsPerSecond: Double {
        switch self {
        case .getTransactionInfo, .getTransactionHistory, .getAllSubscriptionStatuses,
             .getNotificationHistory, .sendConsumptionInformation: 50
        case .getRefundHistory: 10
        case .requestTestNotification, .getTestNotificationStatus: 1
        // Support operations, asked by hand: modest budgets (Apple publishes no higher figure we rely on).
        case .lookUpOrderId, .extendSubscriptionRenewalDate, .massExtensionStatus, .setAppAccountToken, .getAppTransactionInfo, .finishTransaction: 10
        case .massExtendRenewalDate: 1
        }
    }

    public var description: String { rawValue }
}
