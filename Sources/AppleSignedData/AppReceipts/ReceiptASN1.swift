import SwiftASN1

/// Parsing one untrusted BER element into swift-asn1 nodes: measured first (`BERExtent`), so each
/// way of being broken has its reason, then parsed.
enum ReceiptASN1 {
    /// The single element that `bytes` must consist of.
    static func parse(_ bytes: ArraySlice<UInt8>, limits: AppReceiptLimits) throws -> ASN1Node {
        guard !bytes.isEmpty else { throw AppReceiptVerificationError(.truncated, "no bytes") }
        let extent = try BERExtent.measure(bytes, maximumDepth: limits.maximumNestingDepth)
        guard extent == bytes.count else {
            throw AppReceiptVerificationError(.trailingBytes, "\(bytes.count - extent) bytes after offset \(extent)")
        }
        do {
            return try BER.parse(bytes)
        } catch let error as ASN1Error {
            throw AppReceiptVerificationError(.malformedEncoding, "swift-asn1: \(error.code)")
        }
    }
}

extension ASN1Node {
    /// The elements of a constructed node, or `reason` if this one is primitive.
    func children(_ reason: AppReceiptVerificationError.Reason, _ what: @autoclosure () -> String) throws -> [ASN1Node] {
        guard case .constructed(let nodes) = content else {
            throw AppReceiptVerificationError(reason, "\(what()) is not constructed")
        }
        return Array(nodes)
    }

    /// The content octets of an OCTET STRING, its segments joined when BER splits it (X.690 §8.7.3).
    func octetString(_ reason: AppReceiptVerificationError.Reason, _ what: @autoclosure () -> String) throws -> [UInt8] {
        guard identifier == .octetString else {
            throw AppReceiptVerificationError(reason, "\(what()) is not an OCTET STRING")
        }
        switch content {
        case .primitive(let bytes):
            return Array(bytes)
        case .constructed(let segments):
            var joined: [UInt8] = []
            for segment in segments {
                joined += try segment.octetString(reason, what())
            }
            return joined
        }
    }

    func objectIdentifier(_ reason: AppReceiptVerificationError.Reason, _ what: @autoclosure () -> String) throws -> ASN1ObjectIdentifier {
        guard let oid = try? ASN1ObjectIdentifier(berEncoded: self) else {
            throw AppReceiptVerificationError(reason, "\(what()) is not an OBJECT IDENTIFIER")
        }
        return oid
    }

    /// An INTEGER that fits `Int64`.
    func integer(_ reason: AppReceiptVerificationError.Reason, _ what: @autoclosure () -> String) throws -> Int64 {
        guard let value = try? Int64(berEncoded: self) else {
            throw AppReceiptVerificationError(reason, "\(what()) is not an INTEGER that fits 64 bits")
        }
        return value
    }

    /// Whether this is context-specific tag `[number]`.
    func isContext(_ number: UInt) -> Bool {
        identifier == ASN1Identifier(tagWithNumber: number, tagClass: .contextSpecific)
    }
}
