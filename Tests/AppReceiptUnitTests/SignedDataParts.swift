import SwiftASN1

/// A DER receipt taken apart into the fields of its SignedData, to put back together with one
/// field changed — for containers the receipt signer never makes.
struct SignedDataParts {
    static let signedDataOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
    static let dataOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]

    var version: [UInt8]
    var digestAlgorithms: [UInt8]
    var encapsulatedContent: [UInt8]
    var certificates: [UInt8]?
    var signerInfos: [UInt8]

    init(der: [UInt8]) throws {
        let contentInfo = try DER.parse(der)
        guard case .constructed(let outer) = contentInfo.content, case .constructed(let explicit) = Array(outer)[1].content,
              case .constructed(let fields) = Array(explicit)[0].content
        else { throw ASN1Error.invalidASN1Object(reason: "not a DER receipt") }
        let parts = Array(fields).map { Array($0.encodedBytes) }
        version = parts[0]
        digestAlgorithms = parts[1]
        encapsulatedContent = parts[2]
        certificates = parts.count == 5 ? parts[3] : nil
        signerInfos = parts[parts.count - 1]
    }

    func assembled(contentType: [UInt8] = signedDataOID) -> [UInt8] {
        let signedData = Self.tlv(0x30, version + digestAlgorithms + encapsulatedContent + (certificates ?? []) + signerInfos)
        return Self.tlv(0x30, contentType + Self.tlv(0xA0, signedData))
    }

    /// Tag, DER length, content.
    static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        let count = content.count
        let length: [UInt8] = switch count {
        case ..<0x80: [UInt8(count)]
        case ..<0x100: [0x81, UInt8(count)]
        case ..<0x10000: [0x82, UInt8(count >> 8), UInt8(count & 0xFF)]
        default: [0x83, UInt8(count >> 16), UInt8((count >> 8) & 0xFF), UInt8(count & 0xFF)]
        }
        return [tag] + length + content
    }
}
