/// The request rates a fleet may use, per endpoint and environment. Defaults are Apple's published
/// limits (`ServerAPIEndpoint.productionRequestsPerSecond`, sandbox 10% of production); Apple
/// "may adjust these limits at any time", so every figure can be overridden.
public struct ServerAPIRateLimits: Sendable, Hashable {
    /// Requests per second in production, per endpoint. Default: Apple's table.
    public var production: [ServerAPIEndpoint: Double]
    /// Sandbox rate as a fraction of production. Default: 0.1 (Apple's 10%).
    public var sandboxFactor: Double

    public init(production: [ServerAPIEndpoint: Double] = [:], sandboxFactor: Double = 0.1) {
        var rates = Dictionary(uniqueKeysWithValues: ServerAPIEndpoint.allCases.map { ($0, $0.productionRequestsPerSecond) })
        rates.merge(production) { $1 }
        self.production = rates
        self.sandboxFactor = sandboxFactor
    }

    /// Requests per second allowed for `endpoint` in `environment`.
    public func rate(for endpoint: ServerAPIEndpoint, in environment: ServerAPIEnvironment) -> Double {
        let base = production[endpoint] ?? endpoint.productionRequestsPerSecond
        return environment == .production ? base : base * sandboxFactor
    }

    /// Rates must be positive and finite, the sandbox factor within (0, 1].
    public func validate() throws {
        for (endpoint, rate) in production where !(rate > 0 && rate.isFinite) {
            throw ServerAPIConfigurationError.invalidRate("\(endpoint.rawValue): \(rate)")
        }
        guard sandboxFactor > 0, sandboxFactor <= 1 else {
            throw ServerAPIConfigurationError.invalidRate("sandbox factor \(sandboxFactor)")
        }
    }
}
