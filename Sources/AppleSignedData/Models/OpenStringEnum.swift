/// Apple adds values to its string enumerations without notice (new environments, product types,
/// ownership types). A payload that carries a value we do not know must still decode: such values
/// land in the `unknown(String)` case instead of failing the whole purchase.
public protocol OpenStringEnum: Codable, Hashable, Sendable {
    /// The value as Apple spells it.
    var rawValue: String { get }
    /// Never fails: an unrecognised spelling becomes the `unknown` case.
    init(rawValue: String)
}

extension OpenStringEnum {
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
