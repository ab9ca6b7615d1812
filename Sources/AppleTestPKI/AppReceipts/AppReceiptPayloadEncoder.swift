import AppleSignedData
import Foundation
import SwiftASN1

/// Encodes an `AppReceiptContents` as Apple's receipt payload: a SET of `ReceiptAttribute` in ascending
/// field type (Apple's order, not DER's sorted SET OF), each purchase a nested SET in field 17.
/// Strings are UTF8String, dates IA5String RFC 3339 in whole seconds, flags INTEGER 0/1; absent
/// fields are left out, except a purchase's expiration and cancellation dates, which Apple writes
/// as empty strings. `otherAttributes` go in by type, after known fields of the same type.
public enum AppReceiptPayloadEncoder {
    public static func encode(_ receipt: AppReceiptContents) -> [UInt8] {
        var fields: [AppReceiptAttribute] = []
        func add(_ type: Int, _ value: [UInt8]?) {
            if let value { fields.append(AppReceiptAttribute(type: type, value: value)) }
        }
        add(0, receipt.receiptType.map(utf8String))
        add(2, receipt.bundleId.map(utf8String))
        add(3, receipt.appVersion.map(utf8String))
        add(4, receipt.opaqueValue)
        add(5, receipt.sha1Hash)
        add(12, receipt.creationDate.map(date))
        for purchase in receipt.purchases { add(17, encode(purchase)) }
        add(18, receipt.originalPurchaseDate.map(date))
        add(19, receipt.originalAppVersion.map(utf8String))
        add(21, receipt.expirationDate.map(date))
        return attributeSet(fields, other: receipt.otherAttributes)
    }

    static func encode(_ purchase: AppReceiptPurchase) -> [UInt8] {
        var fields: [AppReceiptAttribute] = []
        func add(_ type: Int, _ value: [UInt8]?) {
            if let value { fields.append(AppReceiptAttribute(type: type, value: value)) }
        }
        add(1701, purchase.quantity.map { integer(Int64($0)) })
        add(1702, purchase.productId.map(utf8String))
        add(1703, purchase.transactionId.map(utf8String))
        add(1704, purchase.purchaseDate.map(date))
        add(1705, purchase.originalTransactionId.map(utf8String))
        add(1706, purchase.originalPurchaseDate.map(date))
        add(1708, purchase.subscriptionExpirationDate.map(date) ?? ia5String(""))
        add(1711, purchase.webOrderLineItemId.map(integer))
        add(1712, purchase.cancellationDate.map(date) ?? ia5String(""))
        add(1713, purchase.isInTrialPeriod.map { integer($0 ? 1 : 0) })
        add(1719, purchase.isInIntroOfferPeriod.map { integer($0 ? 1 : 0) })
        add(1721, purchase.promotionalOfferId.map(utf8String))
        return attributeSet(fields, other: purchase.otherAttributes)
    }

    private static func attributeSet(_ known: [AppReceiptAttribute], other: [AppReceiptAttribute]) -> [UInt8] {
        let ordered = (known.map { (0, $0) } + other.map { (1, $0) })
            .enumerated()
            .sorted { ($0.element.1.type, $0.element.0, $0.offset) < ($1.element.1.type, $1.element.0, $1.offset) }
            .map(\.element.1)
        var serializer = DER.Serializer()
        try! serializer.appendConstructedNode(identifier: .set) { set in
            for attribute in ordered {
                try set.appendConstructedNode(identifier: .sequence) { sequence in
                    try sequence.serialize(Int64(attribute.type))
                    try sequence.serialize(Int64(attribute.version))
                    try sequence.serialize(ASN1OctetString(contentBytes: attribute.value[...]))
                }
            }
        }
        return serializer.serializedBytes
    }

    private static func utf8String(_ text: String) -> [UInt8] {
        var serializer = DER.Serializer()
        try! serializer.serialize(ASN1UTF8String(text))
        return serializer.serializedBytes
    }

    private static func ia5String(_ text: String) -> [UInt8] {
        var serializer = DER.Serializer()
        serializer.appendPrimitiveNode(identifier: .ia5String) { $0.append(contentsOf: text.utf8) }
        return serializer.serializedBytes
    }

    private static func date(_ date: Date) -> [UInt8] {
        ia5String(Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)).formatted(.iso8601))
    }

    private static func integer(_ value: Int64) -> [UInt8] {
        var serializer = DER.Serializer()
        try! serializer.serialize(value)
        return serializer.serializedBytes
    }
}
