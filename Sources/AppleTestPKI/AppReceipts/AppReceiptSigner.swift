import _CryptoExtras
import AppleSignedData
import Crypto
import Foundation
import SwiftASN1
import X509

/// Mints app receipts: an `AppReceiptContents` encoded as Apple's payload, signed by a receipt signing
/// identity, in a real PKCS #7 signed-data container. By default in the shape of Apple's own
/// receipts (indefinite lengths, content in segments, no signed attributes, `rsaEncryption` named
/// as the signature algorithm); `Options` selects the shapes other tools produce.
///
/// The fake App Store mints receipts with this and reads them back with `UnverifiedAppReceipt` or
/// an `AppReceiptVerifier` that trusts the test root.
public struct AppReceiptSigner: Sendable {
    public let identity: ReceiptSigningIdentity
    public var options: Options

    public init(identity: ReceiptSigningIdentity, options: Options = Options()) {
        self.identity = identity
        self.options = options
    }

    /// The receipt as BER/DER bytes.
    public func sign(_ receipt: AppReceiptContents) throws -> [UInt8] {
        try sign(content: AppReceiptPayloadEncoder.encode(receipt))
    }

    /// The receipt as base64, as apps send it; with `lineLength`, broken into lines as some clients do.
    public func signBase64(_ receipt: AppReceiptContents, lineLength: Int? = nil) throws -> String {
        Self.base64(try sign(receipt), lineLength: lineLength)
    }

    /// Any content bytes signed as a receipt payload: for receipts whose payload is broken on purpose.
    public func sign(content payload: [UInt8]) throws -> [UInt8] {
        let content = options.xcodeDoubleWrap ? Self.octetString(payload) : payload
        let signerInfo = try CMSSignerInfoWriter(identity: identity, options: options).encode(content: content)
        return try CMSSignedDataWriter(options: options).encode(
            content: content, certificates: identity.certificates, signerInfo: signerInfo
        )
    }

    /// Standard base64, optionally broken into lines of `lineLength` characters.
    public static func base64(_ bytes: [UInt8], lineLength: Int? = nil) -> String {
        let text = Data(bytes).base64EncodedString()
        guard let lineLength, lineLength > 0 else { return text }
        var lines: [Substring] = []
        var rest = text[...]
        while !rest.isEmpty {
            lines.append(rest.prefix(lineLength))
            rest = rest.dropFirst(lineLength)
        }
        return lines.joined(separator: "\r\n")
    }

    static func octetString(_ bytes: [UInt8]) -> [UInt8] {
        var serializer = DER.Serializer()
        try! serializer.serialize(ASN1OctetString(contentBytes: bytes[...]))
        return serializer.serializedBytes
    }
}
