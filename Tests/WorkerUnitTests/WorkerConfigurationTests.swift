import AppStore
import Testing
import Worker

@Suite("Worker configuration: Apple is reached over HTTPS")
struct WorkerConfigurationTests {
    func configuration(production: String, sandbox: String = "https://sandbox.itunes.apple.com/verifyReceipt") -> WorkerConfiguration {
        WorkerConfiguration(name: "w", bundleIDs: ["com.example.app"],
                            apple: VerifyReceiptClientConfiguration(productionURL: production, sandboxURL: sandbox))
    }

    @Test func httpsAndPlainHTTPToTheFakeOnLoopbackAreAccepted() throws {
        try configuration(production: "https://buy.itunes.apple.com/verifyReceipt").validate()
        try configuration(production: "http://127.0.0.1:9100/production/verifyReceipt",
                          sandbox: "http://localhost:9100/sandbox/verifyReceipt").validate()
    }

    @Test(arguments: ["http://buy.itunes.apple.com/verifyReceipt", "http://fake-appstore:8787/production/verifyReceipt", "ftp://x/y"])
    func plainHTTPToAnotherHostIsAConfigurationErrorNamingTheFlag(url: String) {
        #expect { try configuration(production: url).validate() } throws: { error in
            "\(error)".contains("--apple-production-url must be an https URL")
        }
        #expect { try configuration(production: "https://buy.itunes.apple.com/verifyReceipt", sandbox: url).validate() } throws: { error in
            "\(error)".contains("--apple-sandbox-url")
        }
    }

    @Test(arguments: [(-1, "--history-sync-concurrency"), (1_001, "--history-sync-concurrency")])
    func historySyncConcurrencyOutOfRangeNamesTheFlag(value: Int, flag: String) {
        #expect { try HistorySyncRunner.Configuration(name: "w", concurrency: value).validate() } throws: { "\($0)".contains(flag) }
    }

    @Test(arguments: [(-1, 0.5, "--reconcile-concurrency"), (1_001, 0.5, "--reconcile-concurrency"),
                      (8, 0, "--reconcile-budget-share"), (8, -0.1, "--reconcile-budget-share"), (8, 1.01, "--reconcile-budget-share"),
                      (8, .nan, "--reconcile-budget-share")])
    func reconciliationSettingsOutOfRangeNameTheFlag(concurrency: Int, share: Double, flag: String) {
        #expect { try StatusReconciler.Configuration(name: "w", concurrency: concurrency, budgetShare: share).validate() } throws: {
            "\($0)".contains(flag)
        }
    }

    @Test func theDefaultsAndTheEdgesOfTheRangesAreAccepted() throws {
        try HistorySyncRunner.Configuration(name: "w").validate()
        try HistorySyncRunner.Configuration(name: "w", concurrency: 0).validate()
        try StatusReconciler.Configuration(name: "w").validate()
        try StatusReconciler.Configuration(name: "w", concurrency: 0, budgetShare: 1).validate()
        #expect(HistorySyncRunner.Configuration(name: "w").concurrency == 4)
        #expect(StatusReconciler.Configuration(name: "w").concurrency == 8)
        #expect(StatusReconciler.Configuration(name: "w").budgetShare == 0.5)
    }
}
