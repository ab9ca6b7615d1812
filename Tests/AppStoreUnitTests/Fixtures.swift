/// Realistic verifyReceipt answers, shaped after Apple's documentation and field captures.
enum Fixtures {
    static let consumable = """
        {"status":0,"environment":"Production","receipt":{"receipt_type":"Production","adam_id":1234567890,
        "app_item_id":1234567890,"bundle_id":"com.example.game","application_version":"42",
        "download_id":80000000000000,"version_external_identifier":0,"receipt_creation_date":"2024-03-01 10:00:00 Etc/GMT",
        "receipt_creation_date_ms":"1709287200000","request_date_ms":"1709287300000","original_purchase_date_ms":"1600000000000",
        "original_application_version":"1.0","in_app":[{"quantity":"1","product_id":"com.example.game.coins100",
        "transaction_id":"330001234567890","original_transaction_id":"330001234567890",
        "purchase_date":"2024-03-01 09:59:58 Etc/GMT","purchase_date_ms":"1709287198000",
        "purchase_date_pst":"2024-03-01 01:59:58 America/Los_Angeles","original_purchase_date_ms":"1709287198000",
        "is_trial_period":"false","in_app_ownership_type":"PURCHASED"}]}}
        """

    static let subscription = """
        {"status":21006,"environment":"Production","receipt":{"receipt_type":"Production","bundle_id":"com.example.news",
        "application_version":"7","in_app":[{"quantity":"1","product_id":"com.example.news.monthly","transaction_id":"440000000000001",
        "original_transaction_id":"440000000000001","purchase_date_ms":"1700000000000","expires_date_ms":"1702592000000",
        "web_order_line_item_id":"440000000000100","is_trial_period":"true","is_in_intro_offer_period":"false"}]},
        "latest_receipt_info":[{"quantity":"1","product_id":"com.example.news.monthly","transaction_id":"440000000000002",
        "original_transaction_id":"440000000000001","purchase_date_ms":"1702592000000","expires_date_ms":"1705270400000",
        "cancellation_date_ms":"1703000000000","is_trial_period":"false","subscription_group_identifier":"20000001"}],
        "pending_renewal_info":[{"auto_renew_product_id":"com.example.news.monthly","product_id":"com.example.news.monthly",
        "original_transaction_id":"440000000000001","auto_renew_status":"0","expiration_intent":"1",
        "is_in_billing_retry_period":"0"}],"latest_receipt":"MIIT...base64..."}
        """

    static let emptyInApp = """
        {"status":0,"environment":"Production","receipt":{"receipt_type":"Production","bundle_id":"com.example.game",
        "application_version":"42","in_app":[]}}
        """

    static let sandbox = """
        {"status":0,"environment":"Sandbox","receipt":{"receipt_type":"ProductionSandbox","bundle_id":"com.example.game",
        "application_version":"42","in_app":[{"quantity":"2","product_id":"com.example.game.gems","transaction_id":"2000000123456789",
        "original_transaction_id":"2000000123456789","purchase_date_ms":"1709287198000"}]}}
        """

    static let internalErrorBoolHint = #"{"status":21199,"is_retryable":true}"#
    static let internalErrorNumericHint = #"{"status":21150,"is-retryable":0}"#
    static let maintenancePage = "<!DOCTYPE html><html><body>The App Store is temporarily unavailable.</body></html>"
}
