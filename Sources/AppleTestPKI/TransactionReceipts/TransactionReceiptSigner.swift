import _CryptoExtras
import AppleSignedData
import Crypto
import Foundation
import SwiftASN1
import X509

/// Mints iOS 6 transaction receipts (`TransactionReceipt`) as Apple's servers made them: the
/// purchase info as an old-style property list, a version-3 signature blob (RSA PKCS #1 v1.5 over
/// SHA-256 of the version byte and the purchase info, then the signer's certificate), and the
/// outer list, base64 as an app sends it. The fake App Store mints and reads them back with
/// `TransactionReceipt.isSigned(by:)`, as Apple checks its own.
public struct TransactionReceiptSigner: Sendable {
    public let identity: ReceiptSigningIdentity

    public init(identity: ReceiptSigningIdentity) {
        self.identity = identity
    }

    /// `purchaseInfo` (Apple's field names: `bid`, `transaction-id`, `product-id`, …) signed, in
    /// `environment` ("Sandbox", or nil for production).
    public func signBase64(purchaseInfo: [String: String], environment: String?) throws -> String {
        let info = Array(Self.plist(purchaseInfo).utf8)
        guard case .rsa(let key) = identity.key else {
            throw TransactionReceiptSignerError("iOS 6 transaction receipts are RSA-signed")
        }
        let version: UInt8 = 3
        let signature = try key.signature(for: SHA256.hash(data: [version] + info), padding: .insecurePKCS1v1_5).rawRepresentation
        var serializer = DER.Serializer()
        try serializer.serialize(identity.certificate)
        let certificate = serializer.serializedBytes
        let length = UInt32(certificate.count)
        let blob = [version] + Array(signature) + [UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff)]
            + certificate
        // Apple's order: the founding example's base64 starts `ewoJInNpZ25hdHVyZSIgPSAi`.
        let outer = [("signature", Data(blob).base64EncodedString()), ("purchase-info", Data(info).base64EncodedString())]
            + (environment.map { [("environment", $0)] } ?? []) + [("pod", "100"), ("signing-status", "0")]
        return Data(Self.plist(outer).utf8).base64EncodedString()
    }

    /// `{` then one `"key" = "value";` per line, tab-indented, then `}` — Apple's layout.
    static func plist(_ entries: [String: String]) -> String {
        plist(entries.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    static func plist(_ entries: [(String, String)]) -> String {
        let lines = entries.map { "\t\"\(escape($0.0))\" = \"\(escape($0.1))\";" }
        return "{\n" + lines.joined(separator: "\n") + "\n}"
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}

public struct TransactionReceiptSignerError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
