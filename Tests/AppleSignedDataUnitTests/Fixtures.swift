import AppleTestPKI
import Foundation
import X509
@testable import AppleSignedData

/// One instant every test judges at, so validity windows are exact.
let reference = Date(timeIntervalSince1970: 1_750_000_000)   // 2025-06-15
let day: TimeInterval = 86_400
let bundleId = "com.example.receiptqueue"
let appAppleId: Int64 = 1_234_567_890

/// A PKI laid around `reference`, optionally broken one way.
func makePKI(_ change: (inout TestPKI.Options) -> Void = { _ in }) throws -> TestPKI {
    var options = TestPKI.Options()
    options.reference = reference
    change(&options)
    return try TestPKI(options)
}

/// A verifier that trusts `roots` and lives at `reference`.
func makeVerifier(
    trusting roots: [Certificate],
    environment: AppStoreEnvironment = .sandbox,
    appAppleId: Int64? = nil,
    revocationChecking: SignedDataVerifier.RevocationChecking = .off,
    chainCacheCapacity: Int = 64,
    now: Date = reference
) throws -> SignedDataVerifier {
    try SignedDataVerifier(configuration: .init(
        trustedRoots: roots, bundleIds: [bundleId], environment: environment, appAppleId: appAppleId,
        revocationChecking: revocationChecking, chainCacheCapacity: chainCacheCapacity, now: { now }
    ))
}

/// A sandbox consumable purchase for `bundleId`, signed at `signedAt`.
func transaction(signedAt: Date = reference, environment: AppStoreEnvironment = .sandbox, bundle: String = bundleId) -> TransactionPayload {
    var payload = TransactionPayload()
    payload.transactionId = "2000000123456789"
    payload.originalTransactionId = "2000000123456789"
    payload.bundleId = bundle
    payload.productId = "coins.100"
    payload.purchaseDate = signedAt.appStoreMilliseconds - 5_000
    payload.quantity = 1
    payload.type = .consumable
    payload.appAccountToken = UUID(uuidString: "7E3F6D8A-2B4C-4E1A-9F0D-5C6B7A8E9F10")
    payload.inAppOwnershipType = .purchased
    payload.signedDate = signedAt.appStoreMilliseconds
    payload.environment = environment
    payload.price = 990
    payload.currency = "EUR"
    return payload
}

/// A production REFUND for the configured app, carrying `signedTransactionInfo` (unsigned).
func refundNotification(carrying signedTransactionInfo: String) -> NotificationPayload {
    var notification = NotificationPayload()
    notification.notificationType = "REFUND"
    notification.notificationUUID = "0b5a8f4e-8f3e-4a5b-9c1d-2e3f4a5b6c7d"
    notification.signedDate = reference.appStoreMilliseconds
    notification.data = NotificationData()
    notification.data?.appAppleId = appAppleId
    notification.data?.bundleId = bundleId
    notification.data?.environment = .production
    notification.data?.signedTransactionInfo = signedTransactionInfo
    return notification
}

/// The reason `body` was refused, or `nil` if it was not.
func refusal(_ body: () async throws -> some Any) async -> SignedDataVerificationError.Reason? {
    do {
        _ = try await body()
        return nil
    } catch let error as SignedDataVerificationError {
        return error.reason
    } catch {
        return nil
    }
}

/// `jws` with one segment replaced.
func replacing(segment index: Int, of jws: String, with text: String) -> String {
    var parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    parts[index] = text
    return parts.joined(separator: ".")
}

func base64URL(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }
