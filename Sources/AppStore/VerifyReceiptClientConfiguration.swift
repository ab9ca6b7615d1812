/// Where and how `VerifyReceiptClient` asks Apple. Every parameter has a documented default.
public struct VerifyReceiptClientConfiguration: Sendable {
    /// Default: Apple's `https://buy.itunes.apple.com/verifyReceipt`.
    public var productionURL: String
    /// Default: Apple's `https://sandbox.itunes.apple.com/verifyReceipt`.
    public var sandboxURL: String
    /// The app's shared secret, sent as `password`; `nil` omits it. Default: `nil`.
    public var sharedSecret: String?
    /// Sent as `exclude-old-transactions`. Default: `false`.
    public var excludeOldTransactions: Bool
    /// Total time allowed for one HTTP call to Apple. Apple takes 3–6 s on a good day; a call
    /// still unanswered after this is `timedOut` and the scheduler requeues its job. Default: 15 s.
    public var requestTimeout: Duration

    public init(
        productionURL: String = "https://buy.itunes.apple.com/verifyReceipt",
        sandboxURL: String = "https://sandbox.itunes.apple.com/verifyReceipt",
        sharedSecret: String? = nil,
        excludeOldTransactions: Bool = false,
        requestTimeout: Duration = .seconds(15)
    ) {
        self.productionURL = productionURL
        self.sandboxURL = sandboxURL
        self.sharedSecret = sharedSecret
        self.excludeOldTransactions = excludeOldTransactions
        self.requestTimeout = requestTimeout
    }

    func url(for environment: VerifyReceiptEnvironment) -> String {
        switch environment {
        case .production: productionURL
        case .sandbox: sandboxURL
        }
    }
}
