import SwiftASN1

/// Decodes a receipt payload — `SET OF ReceiptAttribute`, in-app purchases nested as SETs in field
/// 17 — into an `AppReceipt`. Also reads Xcode's double-wrapped payload (the SET inside one more
/// OCTET STRING). Unknown field types are kept raw; a known field twice refuses the receipt, since
/// which of two bundle ids would count is anyone's guess.
enum ReceiptPayloadDecoder {
    static func decode(_ content: [UInt8], limits: AppReceiptLimits) throws -> AppReceipt {
        var receipt = AppReceipt()
        var seen = Set<Int>()
        for attribute in try attributes(of: content, limits: limits, failure: .malformedPayload, what: "payload") {
            let field = ReceiptFieldValue(type: attribute.type, value: attribute.value, limits: limits)
            if attribute.type != ReceiptFieldType.inAppPurchase, known.contains(attribute.type) {
                guard seen.insert(attribute.type).inserted else { throw field.failure("appears twice") }
            }
            switch attribute.type {
            case ReceiptFieldType.receiptType: receipt.receiptType = try field.string()
            case ReceiptFieldType.bundleId: receipt.bundleId = try field.string()
            case ReceiptFieldType.appVersion: receipt.appVersion = try field.string()
            case ReceiptFieldType.opaqueValue: receipt.opaqueValue = attribute.value
            case ReceiptFieldType.sha1Hash: receipt.sha1Hash = attribute.value
            case ReceiptFieldType.creationDate: receipt.creationDate = try field.date()
            case ReceiptFieldType.inAppPurchase: receipt.purchases.append(try purchase(attribute.value, limits: limits))
            case ReceiptFieldType.originalPurchaseDate: receipt.originalPurchaseDate = try field.date()
            case ReceiptFieldType.originalAppVersion: receipt.originalAppVersion = try field.string()
            case ReceiptFieldType.expirationDate: receipt.expirationDate = try field.date()
            default: receipt.otherAttributes.append(attribute)
            }
        }
        return receipt
    }

    private static let known: Set<Int> = [
        ReceiptFieldType.receiptType, ReceiptFieldType.bundleId, ReceiptFieldType.appVersion, ReceiptFieldType.opaqueValue,
        ReceiptFieldType.sha1Hash, ReceiptFieldType.creationDate, ReceiptFieldType.originalPurchaseDate,
        ReceiptFieldType.originalAppVersion, ReceiptFieldType.expirationDate,
    ]

    private static let knownInPurchase: Set<Int> = [
        ReceiptFieldType.quantity, ReceiptFieldType.productId, ReceiptFieldType.transactionId, ReceiptFieldType.purchaseDate,
        ReceiptFieldType.originalTransactionId, ReceiptFieldType.originalTransactionPurchaseDate, ReceiptFieldType.subscriptionExpirationDate,
        ReceiptFieldType.webOrderLineItemId, ReceiptFieldType.cancellationDate, ReceiptFieldType.isInTrialPeriod,
        ReceiptFieldType.isInIntroOfferPeriod, ReceiptFieldType.promotionalOfferId,
    ]

    private static func purchase(_ value: [UInt8], limits: AppReceiptLimits) throws -> AppReceiptPurchase {
        var purchase = AppReceiptPurchase()
        var seen = Set<Int>()
        for attribute in try attributes(of: value, limits: limits, failure: .unparsableAttribute, what: "field 17") {
            let field = ReceiptFieldValue(type: attribute.type, value: attribute.value, limits: limits)
            if knownInPurchase.contains(attribute.type) {
                guard seen.insert(attribute.type).inserted else { throw field.failure("appears twice in one purchase") }
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
            default: purchase.otherAttributes.append(attribute)
            }
        }
        return purchase
    }

    /// The attributes of a `SET OF ReceiptAttribute` given as BER bytes, unwrapping one OCTET STRING
    /// around it (Xcode's double wrap).
    private static func attributes(
        of bytes: [UInt8], limits: AppReceiptLimits, failure reason: AppReceiptVerificationError.Reason, what: String
    ) throws -> [AppReceiptAttribute] {
        var node = try parse(bytes, limits: limits, failure: reason, what: what)
        if node.identifier == .octetString {
            node = try parse(try node.octetString(reason, what), limits: limits, failure: reason, what: what)
        }
        guard node.identifier == .set else {
            throw AppReceiptVerificationError(reason, "\(what) is not a SET of receipt attributes")
        }
        return try node.children(reason, what).map { element in
            let fields = try element.children(reason, "\(what) attribute")
            guard element.identifier == .sequence, fields.count == 3,
                  fields[0].identifier == .integer, fields[1].identifier == .integer,
                  let type = Int(exactly: try fields[0].integer(reason, "\(what) attribute type")),
                  let version = Int(exactly: try fields[1].integer(reason, "\(what) attribute version"))
            else { throw AppReceiptVerificationError(reason, "\(what) attribute is not SEQUENCE { type, version, value }") }
            return AppReceiptAttribute(type: type, version: version, value: try fields[2].octetString(reason, "\(what) attribute value"))
        }
    }

    private static func parse(_ bytes: [UInt8], limits: AppReceiptLimits, failure reason: AppReceiptVerificationError.Reason, what: String) throws -> ASN1Node {
        do {
            return try ReceiptASN1.parse(bytes[...], limits: limits)
        } catch let error as AppReceiptVerificationError {
            throw AppReceiptVerificationError(reason, "\(what): \(error.reason.summary)")
        }
    }
}
