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
}
