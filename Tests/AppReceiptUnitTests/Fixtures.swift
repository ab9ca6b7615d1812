import AppleTestPKI
import Foundation
import X509
@testable import AppleSignedData

/// One instant every test judges at, so validity windows are exact: 2025-06-15T15:06:40Z.
let reference = Date(timeIntervalSince1970: 1_750_000_000)
let day: TimeInterval = 86_400
let bundleId = "com.example.receiptqueue"

/// An RSA PKI with Apple's receipt chain names, laid around `reference`, optionally broken one way.
func makePKI(_ change: (inout TestPKI.Options) -> Void = { _ in }) throws -> RSATestPKI {
    var options = TestPKI.Options()
    options.names = .appleReceiptLike
    options.reference = reference
    change(&options)
    return try RSATestPKI(options)
}

/// The suite's RSA PKI, built once: RSA key generation takes a few hundred milliseconds.
let pki = try! makePKI()

/// A sandbox receipt made at `reference` with every field set: a consumable, a subscription period
/// (in a trial, then refunded) and fields of types this code does not know.
func sampleReceipt(environment: AppStoreEnvironment = .sandbox, bundle: String = bundleId, createdAt: Date = reference) -> AppReceiptContents {
    AppReceiptContents(
        receiptType: AppReceiptContents.receiptType(for: environment),
        bundleId: bundle,
        appVersion: "42",
        opaqueValue: [0x5A, 0x0B, 0xC3, 0x01, 0xFE, 0x00, 0x7F, 0x80],
        sha1Hash: Array(repeating: 0xAB, count: 20),
        creationDate: createdAt,
        purchases: [
            AppReceiptPurchase(
                quantity: 3, productId: "coins.100", transactionId: "2000000123456789",
                purchaseDate: createdAt.addingTimeInterval(-60), originalTransactionId: "2000000123456789",
                originalPurchaseDate: createdAt.addingTimeInterval(-60)
            ),
            AppReceiptPurchase(
                quantity: 1, productId: "pro.monthly", transactionId: "2000000987654321",
                purchaseDate: createdAt.addingTimeInterval(-3 * day), originalTransactionId: "2000000111111111",
                originalPurchaseDate: createdAt.addingTimeInterval(-33 * day),
                subscriptionExpirationDate: createdAt.addingTimeInterval(27 * day), webOrderLineItemId: 2_000_000_055_555_555,
                cancellationDate: createdAt.addingTimeInterval(-1 * day), isInTrialPeriod: true, isInIntroOfferPeriod: false,
                promotionalOfferId: "winback.50",
                otherAttributes: [AppReceiptAttribute(type: 1707, value: [0x02, 0x01, 0x03])]
            ),
        ],
        originalPurchaseDate: createdAt.addingTimeInterval(-400 * day),
        originalAppVersion: "1.0",
        otherAttributes: [AppReceiptAttribute(type: 8, value: [0x16, 0x00]), AppReceiptAttribute(type: 9999, value: [0xDE, 0xAD])]
    )
}

/// A verifier that trusts `roots`, accepts `environments` and lives at `now`.
func makeVerifier(
    trusting roots: [Certificate] = [pki.root],
    environments: Set<AppStoreEnvironment> = [.sandbox],
    limits: AppReceiptLimits = AppReceiptLimits(),
    chainCacheCapacity: Int = 64,
    now: Date = reference
) throws -> AppReceiptVerifier {
    try AppReceiptVerifier(configuration: .init(
        trustedRoots: roots, bundleIds: [bundleId], environments: environments, limits: limits,
        chainCacheCapacity: chainCacheCapacity, now: { now }
    ))
}

/// `receipt` minted by `identity` (default: the suite PKI's leaf) in Apple's shape unless changed.
func mint(
    _ receipt: AppReceiptContents = sampleReceipt(),
    by identity: ReceiptSigningIdentity = pki.receiptSigner,
    _ change: (inout AppReceiptSigner.Options) -> Void = { _ in }
) throws -> [UInt8] {
    var options = AppReceiptSigner.Options()
    change(&options)
    return try AppReceiptSigner(identity: identity, options: options).sign(receipt)
}

/// The reason `body` was refused, or `nil` if it was not.
func refusal(_ body: () async throws -> some Any) async -> AppReceiptVerificationError.Reason? {
    do {
        _ = try await body()
        return nil
    } catch let error as AppReceiptVerificationError {
        return error.reason
    } catch {
        return nil
    }
}

/// `bytes` with the first occurrence of `needle` replaced by `replacement` (of any length).
func replacingFirst(_ needle: [UInt8], in bytes: [UInt8], with replacement: [UInt8], after start: Int = 0) -> [UInt8]? {
    guard needle.count <= bytes.count else { return nil }
    for index in start...(bytes.count - needle.count) where bytes[index..<(index + needle.count)].elementsEqual(needle) {
        return Array(bytes[..<index]) + replacement + Array(bytes[(index + needle.count)...])
    }
    return nil
}
