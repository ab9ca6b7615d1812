import AppStoreServerAPI
import Testing

@Suite("Server API configuration: HTTPS, or HTTP to this machine only")
struct ServerAPIConfigurationTests {
    @Test func applesDefaultsAreValid() throws {
        try ServerAPIConfiguration().validate()
        #expect(ServerAPIConfiguration().baseURL(for: .production) == "https://api.storekit.itunes.apple.com")
        #expect(ServerAPIConfiguration().baseURL(for: .sandbox) == "https://api.storekit-sandbox.itunes.apple.com")
    }

    @Test(arguments: ["http://127.0.0.1:9100/production", "http://localhost:9100", "https://example.com/base/"])
    func loopbackHTTPAndAnyHTTPSAreAccepted(url: String) throws {
        try ServerAPIConfiguration(productionURL: url).validate()
    }

    @Test(arguments: ["http://example.com", "http://10.0.0.5:9100", "http://127.0.0.1.example.com"])
    func plainHTTPElsewhereIsRefused(url: String) {
        #expect(throws: ServerAPIConfigurationError.insecureURL(url)) { try ServerAPIConfiguration(sandboxURL: url).validate() }
    }

    @Test(arguments: ["", "not a url", "ftp://127.0.0.1", "https://example.com?x=1"])
    func malformedURLsAreRefused(url: String) {
        #expect(throws: ServerAPIConfigurationError.self) { try ServerAPIConfiguration(productionURL: url).validate() }
    }

    @Test func aTrailingSlashIsDropped() {
        #expect(ServerAPIConfiguration(productionURL: "http://127.0.0.1:1/production/").baseURL(for: .production) == "http://127.0.0.1:1/production")
    }

    @Test func nonPositiveTimeoutsAreRefused() {
        #expect(throws: ServerAPIConfigurationError.nonPositiveTimeout) { try ServerAPIConfiguration(requestTimeout: .zero).validate() }
    }
}

@Suite("Server API rate limits: Apple's table, sandbox at 10%")
struct ServerAPIRateLimitsTests {
    @Test func applesPublishedProductionLimits() {
        let limits = ServerAPIRateLimits()
        #expect(limits.rate(for: .getTransactionInfo, in: .production) == 50)
        #expect(limits.rate(for: .getTransactionHistory, in: .production) == 50)
        #expect(limits.rate(for: .getAllSubscriptionStatuses, in: .production) == 50)
        #expect(limits.rate(for: .sendConsumptionInformation, in: .production) == 50)
        #expect(limits.rate(for: .getNotificationHistory, in: .production) == 50)
        #expect(limits.rate(for: .getRefundHistory, in: .production) == 10)
        #expect(limits.rate(for: .requestTestNotification, in: .production) == 1)
    }

    @Test func sandboxGetsTenPercentUnlessConfigured() {
        #expect(ServerAPIRateLimits().rate(for: .getTransactionInfo, in: .sandbox) == 5)
        #expect(ServerAPIRateLimits(sandboxFactor: 0.5).rate(for: .getRefundHistory, in: .sandbox) == 5)
    }

    @Test func overridesReplaceOnlyTheirEndpoint() {
        let limits = ServerAPIRateLimits(production: [.getTransactionInfo: 20])
        #expect(limits.rate(for: .getTransactionInfo, in: .production) == 20)
        #expect(limits.rate(for: .getTransactionHistory, in: .production) == 50)
    }

    @Test func nonPositiveRatesAreRefused() {
        #expect(throws: ServerAPIConfigurationError.self) { try ServerAPIRateLimits(production: [.getTransactionInfo: 0]).validate() }
        #expect(throws: ServerAPIConfigurationError.self) { try ServerAPIRateLimits(sandboxFactor: 0).validate() }
    }
}
