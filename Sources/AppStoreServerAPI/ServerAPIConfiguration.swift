import Foundation

/// Where and how `AppStoreServerAPIClient` reaches Apple. Every parameter has a documented default;
/// `validate()` runs once, in the client's initialiser.
public struct ServerAPIConfiguration: Sendable {
    /// Default: Apple's `https://api.storekit.itunes.apple.com`.
    public var productionURL: String
    /// Default: Apple's `https://api.storekit-sandbox.itunes.apple.com`.
    public var sandboxURL: String
    /// Total time allowed for one call, connecting included. Apple's own library allows 30 s.
    /// Default: 30 s.
    public var requestTimeout: Duration
    /// How long an endpoint pauses after a 429 that carries no usable `Retry-After`. Default: 1 s.
    public var defaultRateLimitPause: Duration
    /// Sent as `User-Agent`. Default: `receiptq`.
    public var userAgent: String

    public init(
        productionURL: String = "https://api.storekit.itunes.apple.com",
        sandboxURL: String = "https://api.storekit-sandbox.itunes.apple.com",
        requestTimeout: Duration = .seconds(30),
        defaultRateLimitPause: Duration = .seconds(1),
        userAgent: String = "receiptq"
    ) {
        self.productionURL = productionURL
        self.sandboxURL = sandboxURL
        self.requestTimeout = requestTimeout
        self.defaultRateLimitPause = defaultRateLimitPause
        self.userAgent = userAgent
    }

    /// The base URL (no trailing slash) for `environment`.
    public func baseURL(for environment: ServerAPIEnvironment) -> String {
        let url = environment == .production ? productionURL : sandboxURL
        return url.hasSuffix("/") ? String(url.dropLast()) : url
    }

    /// Both URLs must be HTTPS, or plain HTTP to this machine only (the fake App Store on
    /// loopback): a bearer token must never cross a network in the clear.
    public func validate() throws {
        for url in [productionURL, sandboxURL] {
            try Self.checkURL(url)
        }
        guard requestTimeout > .zero else { throw ServerAPIConfigurationError.nonPositiveTimeout }
        guard defaultRateLimitPause > .zero else { throw ServerAPIConfigurationError.nonPositiveTimeout }
    }

    static func checkURL(_ text: String) throws {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              let host = components.host, !host.isEmpty, components.query == nil
        else { throw ServerAPIConfigurationError.invalidURL(text) }
        switch scheme {
        case "https": return
        case "http" where ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased()): return
        default: throw ServerAPIConfigurationError.insecureURL(text)
        }
    }
}

/// A Server API configuration that cannot work, found once at start.
public enum ServerAPIConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidURL(String)
    /// Plain HTTP to anything but loopback.
    case insecureURL(String)
    case nonPositiveTimeout
    case invalidRate(String)

    public var description: String {
        switch self {
        case .invalidURL(let url): "App Store Server API: not an absolute URL without a query: \(url)"
        case .insecureURL(let url): "App Store Server API: \(url) is not HTTPS (plain HTTP is allowed to 127.0.0.1 and localhost only)"
        case .nonPositiveTimeout: "App Store Server API: timeouts and pauses must be positive"
        case .invalidRate(let detail): "App Store Server API: rate limits must be positive (\(detail))"
        }
    }
}
