/// The App Store environment that signed a payload. A verifier is configured with exactly one, and
/// refuses payloads from any other: a sandbox purchase must never be granted as a production one.
public enum AppStoreEnvironment: OpenStringEnum {
    case production
    case sandbox
    /// StoreKit testing in Xcode.
    case xcode
    /// Local testing with the App Store Server Library's test tooling.
    case localTesting
    /// A spelling Apple added after this code was written.
    case unknown(String)

    public init(rawValue: String) {
        switch rawValue {
        case "Production": self = .production
        case "Sandbox": self = .sandbox
        case "Xcode": self = .xcode
        case "LocalTesting": self = .localTesting
        default: self = .unknown(rawValue)
        }
    }

    public var rawValue: String {
        switch self {
        case .production: "Production"
        case .sandbox: "Sandbox"
        case .xcode: "Xcode"
        case .localTesting: "LocalTesting"
        case .unknown(let value): value
        }
    }
}
