import AppStore
import Foundation
import ReceiptQueue
import Testing
import Worker

/// Whatever prints a configuration or a job — a log line, an error, a failed test — prints no
/// secret: not the shared secret, not a receipt, not a webhook secret.
@Suite("Secrets stay out of every description")
struct SecretsInDescriptionsTests {
    static let secret = "s3cret-\(UUID().uuidString)"

    static func printed(_ value: Any) -> [String] {
        [String(describing: value), String(reflecting: value), "\(value)"]
    }

    @Test func theWorkerConfigurationSaysTheSharedSecretIsSetAndNothingMore() {
        let configuration = WorkerConfiguration(name: "w", bundleIDs: ["com.example.app"],
                                                apple: VerifyReceiptClientConfiguration(sharedSecret: Self.secret))
        for text in Self.printed(configuration) + Self.printed(configuration.apple) {
            #expect(!text.contains(Self.secret))
        }
        #expect(configuration.apple.description.contains("<redacted>"))
    }

    @Test func jobsLeasesAndDeliveriesPrintIdsAndSizesNotReceiptsOrSecrets() {
        let job = NewJob(receiptData: Self.secret, transactionID: "t", userID: "u")
        let lease = JobLease(id: 1, attempt: 1, receiptData: Self.secret, transactionID: "t", userID: "u", productID: nil, orderID: nil,
                             createdAt: Date(), lockedUntil: Date())
        let delivery = DeliveryLease(endpointID: "e", eventSequence: 1, eventID: "id", attempt: 1, userID: "u", body: [],
                                     url: "https://example.com", secrets: [Self.secret], budgetFrom: Date())
        let endpoint = WebhookEndpoint(id: "e", url: "https://example.com", secrets: [Self.secret])
        let signed = NewJob.signedTransaction(Self.secret, transactionID: "t", environment: "Production", userID: "u")
        let signedLease = JobLease(id: 2, kind: .signedTransaction, attempt: 1, receiptData: "", signedTransaction: Self.secret,
                                   transactionID: "t", userID: "u", productID: nil, orderID: nil, createdAt: Date(), lockedUntil: Date())
        for value in [job, lease, delivery, endpoint, signed, signedLease] as [Any] {
            for text in Self.printed(value) { #expect(!text.contains(Self.secret), "\(type(of: value))") }
        }
        for text in Self.printed([FinishedAttempt(lease: lease, decision: .result(.release))]) { #expect(!text.contains(Self.secret)) }
    }
}
