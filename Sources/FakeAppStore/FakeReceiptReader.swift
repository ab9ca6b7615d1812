import Foundation
import AppleSignedData
import X509

/// How the fake's verifyReceipt reads `receipt-data`, as Apple's server does: its JSON format
/// (`FakeReceipt`), a real PKCS #7 app receipt, or an iOS 6 transaction receipt. A PKCS #7 or
/// transaction receipt counts only if the fake's own receipt signer signed it — the fake knows its
/// one key as Apple knows its own — so a tampered receipt or an attacker's is answered 21003 (not
/// authentic); anything unreadable 21002.
public struct FakeReceiptReader: Sendable {
    public enum Reading: Sendable, Equatable {
        case receipt(FakeReceipt)
        /// A well-formed app receipt the fake did not sign (21003).
        case notAuthentic
        /// Not a receipt at all (21002).
        case unreadable
    }

    /// The certificate whose key signs the fake's receipts; nil reads the JSON format only.
    public let signer: Certificate?
    /// The certificate whose (RSA) key signs the fake's iOS 6 transaction receipts, once it has one.
    public let transactionSigner: @Sendable () -> Certificate?
    /// The appAccountToken of a transaction the fake sold, by transaction id: Apple's answer
    /// carries it whatever the receipt holds. Default: none known.
    public let accountTokens: @Sendable (String) -> String?

    public init(signer: Certificate? = nil, transactionSigner: @escaping @Sendable () -> Certificate? = { nil },
                accountTokens: @escaping @Sendable (String) -> String? = { _ in nil }) {
        self.signer = signer
        self.transactionSigner = transactionSigner
        self.accountTokens = accountTokens
    }

    /// The receipt as Apple's server reads it: its transactions, each with the appAccountToken it
    /// was bought with when the receipt does not say.
    public func read(base64 text: String) -> Reading {
        let reading = parse(base64: text)
        guard case .receipt(var receipt) = reading else { return reading }
        for index in receipt.inApp.indices where receipt.inApp[index].appAccountToken == nil {
            receipt.inApp[index].appAccountToken = accountTokens(receipt.inApp[index].transactionID)
        }
        return .receipt(receipt)
    }

    private func parse(base64 text: String) -> Reading {
        if let receipt = FakeReceipt.decode(base64: text) { return .receipt(receipt) }
        if let bytes = Data(base64Encoded: text, options: .ignoreUnknownCharacters).map(Array.init), TransactionReceipt.hasItsShape(bytes) {
            guard let receipt = TransactionReceipt(bytes: bytes) else { return .unreadable }
            guard let signer = transactionSigner(), receipt.isSigned(by: signer) else { return .notAuthentic }
            return FakeReceipt(transactionReceipt: receipt).map(Reading.receipt) ?? .unreadable
        }
        guard let signer, let parsed = try? UnverifiedAppReceipt(base64: text) else { return .unreadable }
        guard parsed.isSigned(by: signer) else { return .notAuthentic }
        return FakeReceipt(appReceipt: parsed.contents).map(Reading.receipt) ?? .unreadable
    }
}
