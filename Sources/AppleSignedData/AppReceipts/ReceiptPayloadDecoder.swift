/// Decodes a receipt payload — `SET OF ReceiptAttribute`, in-app purchases nested as SETs in field
/// 17 — into an `AppReceiptContents`, reading the DER in place (`DERCursor`). Also reads Xcode's
/// double-wrapped payload (the SET inside one more OCTET STRING). Unknown field types are kept
/// raw; a known field twice refuses the receipt, since which of two bundle ids would count is
/// anyone's guess.
enum ReceiptPayloadDecoder {
    static func decode(_ content: [UInt8]) throws -> AppReceiptContents {
        var receipt = AppReceiptContents()
        var seen: UInt32 = 0
        try forEachAttribute(in: content[...], failure: .malformedPayload, what: "payload") { attribute in
            let field = ReceiptFieldValue(type: attribute.type, value: attribute.value)
            if attribute.type < 32, attribute.type != ReceiptFieldType.inAppPurchase {
                guard seen & 1 << attribute.type == 0 else { throw field.failure("appears twice") }
                seen |= 1 << attribute.type
            }
            switch attribute.type {
            case ReceiptFieldType.receiptType: receipt.receiptType = try field.string()
            case ReceiptFieldType.bundleId: receipt.bundleId = try field.string()
            case ReceiptFieldType.appVersion: receipt.appVersion = try field.string()
            case ReceiptFieldType.opaqueValue: receipt.opaqueValue = Array(attribute.value)
            case ReceiptFieldType.sha1Hash: receipt.sha1Hash = Array(attribute.value)
            case ReceiptFieldType.creationDate: receipt.creationDate = try field.date()
            case ReceiptFieldType.inAppPurchase: receipt.purchases.append(try purchase(attribute.value))
            case ReceiptFieldType.originalPurchaseDate: receipt.originalPurchaseDate = try field.date()
            case ReceiptFieldType.originalAppVersion: receipt.originalAppVersion = try field.string()
            case ReceiptFieldType.expirationDate: receipt.expirationDate = try field.date()
            default: receipt.otherAttributes.append(AppReceiptAttribute(type: attribute.type, version: attribute.version, value: Array(attribute.value)))
            }
        }
        return receipt
    }

    private static func purchase(_ value: ArraySlice<UInt8>) throws -> AppReceiptPurchase {
        var purchase = AppReceiptPurchase()
        var seen: UInt32 = 0
        try forEachAttribute(in: value, failure: .unparsableAttribute, what: "field 17") { attribute in
            let field = ReceiptFieldValue(type: attribute.type, value: attribute.value)
            if (1701...1731).contains(attribute.type) {
                let bit: UInt32 = 1 << (attribute.type - 1700)
                guard seen & bit == 0 else { throw field.failure("appears twice in one purchase") }
                seen |= bit
            }
            switch attribute.type {
            case ReceiptFieldType.quantity: purchase.quantity = try field.count()
            case ReceiptFieldType.productId: purchase.productId = try field.string()
            case ReceiptFieldType.transactionId: purchase.transactionId = try field.string()
            case ReceiptFieldType.purchaseDate: purchase.purchaseDate = try field.date()
            case ReceiptFieldType.originalTransactionId: purchase.originalTransactionId = try field.string()
            case ReceiptFieldType.originalTransactionPurchaseDate: purchase.originalPurchaseDate = try field.date()
            case ReceiptFieldType.subscriptionExpirationDate: purchase.subscriptionExpirationDate = try field.date()
            case ReceiptFieldType.webOrderLineItemId: purchase.webOrderLineItemId = try field.integer()
            case ReceiptFieldType.cancellationDate: purchase.cancellationDate = try field.date()
            case ReceiptFieldType.isInTrialPeriod: purchase.isInTrialPeriod = try field.flag()
            case ReceiptFieldType.isInIntroOfferPeriod: purchase.isInIntroOfferPeriod = try field.flag()
            case ReceiptFieldType.promotionalOfferId: purchase.promotionalOfferId = try field.string()
            default: purchase.otherAttributes.append(AppReceiptAttribute(type: attribute.type, version: attribute.version, value: Array(attribute.value)))
            }
        }
        return purchase
    }

    /// `ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`, its
    /// value left in place.
    private struct Attribute {
        var type: Int
        var version: Int
        var value: ArraySlice<UInt8>
    }

    /// Calls `body` with each attribute of a DER `SET OF ReceiptAttribute` that fills `bytes`
    /// exactly, or fills the one OCTET STRING that does (Xcode's double wrap).
    private static func forEachAttribute(
        in bytes: ArraySlice<UInt8>, failure reason: AppReceiptVerificationError.Reason, what: String, _ body: (Attribute) throws -> Void
    ) throws {
        var outer = DERCursor(bytes)
        if bytes.first == 0x04 {
            guard let wrapped = outer.next(0x04), outer.isAtEnd else {
                throw AppReceiptVerificationError(reason, "\(what) is not one OCTET STRING")
            }
            outer = DERCursor(wrapped)
        }
        guard let set = outer.next(0x31), outer.isAtEnd else {
            throw AppReceiptVerificationError(reason, "\(what) is not a DER SET of receipt attributes")
        }
        var attributes = DERCursor(set)
        while !attributes.isAtEnd {
            guard let sequence = attributes.next(0x30) else {
                throw AppReceiptVerificationError(reason, "\(what) holds an element that is not a SEQUENCE")
            }
            var fields = DERCursor(sequence)
            guard let type = fields.nextInteger().flatMap(Int.init(exactly:)), let version = fields.nextInteger().flatMap(Int.init(exactly:)),
                  let value = fields.next(0x04), fields.isAtEnd
            else { throw AppReceiptVerificationError(reason, "\(what) attribute is not SEQUENCE { type, version, value }") }
            try body(Attribute(type: type, version: version, value: value))
        }
    }
}
