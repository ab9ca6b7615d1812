/// Whether the user bought the product or has it through Family Sharing.
public enum InAppOwnershipType: OpenStringEnum {
    case purchased
    case familyShared
    /// A spelling Apple added after this code was written.
    case unknown(String)

    public init(rawValue: String) {
        switch rawValue {
        case "PURCHASED": self = .purchased
        case "FAMILY_SHARED": self = .familyShared
        default: self = .unknown(rawValue)
        }
    }

    public var rawValue: String {
        switch self {
        case .purchased: "PURCHASED"
        case .familyShared: "FAMILY_SHARED"
        case .unknown(let value): value
        }
    }
}
