import Foundation

/// The JSON body of a verifyReceipt call.
public struct VerifyReceiptRequest: Sendable, Equatable {
    /// Base64 receipt as received from the app, whitespace and newlines already stripped.
    public var receiptData: String
    /// The app's shared secret (needed for auto-renewable subscriptions); `nil` omits it.
    public var password: String?
    /// Asks Apple to return only the latest renewal of each subscription.
    public var excludeOldTransactions: Bool

    /// - Parameter receiptData: base64 as the app sent it. iOS clients often send line-wrapped
    ///   base64, which Apple answers with 21002, so every whitespace and newline is removed here.
    public init(receiptData: String, password: String? = nil, excludeOldTransactions: Bool = false) {
        self.receiptData = Self.strippingWhitespace(receiptData)
        self.password = password
        self.excludeOldTransactions = excludeOldTransactions
    }

    /// Removes spaces, tabs, CR and LF (and any other Unicode whitespace) from base64 text.
    public static func strippingWhitespace(_ base64: String) -> String {
        // Nearly every receipt has no whitespace: then the same string, not a copy made scalar
        // by scalar (a byte below 0x21 or above 0x7F may be whitespace: the slow path decides).
        var base64 = base64
        if base64.withUTF8({ bytes in !bytes.contains { $0 <= 0x20 || $0 >= 0x7F } }) { return base64 }
        var result = String.UnicodeScalarView()
        for scalar in base64.unicodeScalars where !scalar.properties.isWhitespace {
            result.append(scalar)
        }
        return String(result)
    }

    /// The body Apple expects: `{"exclude-old-transactions": …, "password": …, "receipt-data": …}`,
    /// as an array (`httpBody()` writes it; this copies it for callers that want bytes).
    public func encodedBody() -> [UInt8] {
        httpBody().withUnsafeBytes { Array($0) }
    }
}

extension VerifyReceiptRequest: CustomStringConvertible {
    /// Never prints the receipt or the secret in full: logs must not hold either.
    public var description: String {
        "VerifyReceiptRequest(receipt-data: \(receiptData.count) chars, password: \(password == nil ? "none" : "set"))"
    }
}
