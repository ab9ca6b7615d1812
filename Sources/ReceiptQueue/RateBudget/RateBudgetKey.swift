import Postgres

/// Which token bucket: Apple's limits are per app, per endpoint and per environment. Plain strings
/// here (the domain does not import the Server API client); `endpoint` is
/// `ServerAPIEndpoint.rawValue`, `environment` is `Production` or `Sandbox`.
public struct RateBudgetKey: Sendable, Hashable, CustomStringConvertible {
    public var bundleId: String
    public var endpoint: String
    public var environment: String

    public init(bundleId: String, endpoint: String, environment: String) {
        self.bundleId = bundleId
        self.endpoint = endpoint
        self.environment = environment
    }

    var parameters: [(any PostgresEncodable)?] { [bundleId, endpoint, environment] }

    public var description: String { "\(bundleId)/\(endpoint)/\(environment)" }
}
