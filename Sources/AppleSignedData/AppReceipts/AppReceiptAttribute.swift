/// One `ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }` of a
/// receipt payload, kept raw: the form in which fields this code does not interpret survive decoding.
public struct AppReceiptAttribute: Hashable, Sendable {
    /// The field type (Apple documents 0–21 for the receipt, 1701–1721 for a purchase).
    public var type: Int
    /// The attribute's version; Apple writes 1 and nobody reads it.
    public var version: Int
    /// The value octets: usually the DER of a UTF8String, IA5String, INTEGER or SET.
    public var value: [UInt8]

    public init(type: Int, version: Int = 1, value: [UInt8]) {
        self.type = type
        self.version = version
        self.value = value
    }
}
