import AppleSignedData
import Foundation
import HTTPClient

/// A client of the App Store Server API in one environment, for one app (the token's `bid`).
///
/// Every call: asks the gate for a permit (the fleet's rate budget), signs nothing new while the
/// cached App Store Connect token is valid (`AppStoreConnectTokenProvider` reuses it until near
/// expiry), sends through the shared libcurl engine, and classifies the answer in one place
/// (`ServerAPIClassification`). A 429 pauses the endpoint through the gate before it is thrown.
///
/// Calls return Apple's signed strings as they came; `AppStoreServerAPIClient+Verified` verifies
/// them with a `SignedDataVerifier`. Calls throw `ServerAPIError`, `CancellationError`, or the gate's
/// error. Nothing here logs: tokens and signed payloads never reach a log. Every call is counted
/// and timed (`ServerAPIMetrics`).
public struct AppStoreServerAPIClient: Sendable {
    public let environment: ServerAPIEnvironment
    public let configuration: ServerAPIConfiguration
    private let httpClient: HTTPClient
    private let tokens: AppStoreConnectTokenProvider
    private let gate: any ServerAPIRequestGate
    private let now: @Sendable () -> Date
    private let observer: (any ServerAPICallObserver)?

    /// - Parameters:
    ///   - tokens: issues the bearer JWT; its bundle id is the app this client speaks for.
    ///   - gate: the rate budget to ask before each call. Default: none (`UngatedRequests`).
    ///   - now: the wall clock, for `Retry-After` in seconds; injected by tests.
    ///   - observer: hears of every call and how long it took (the worker's per-minute sums). Default: none.
    /// - Throws: `ServerAPIConfigurationError` for a configuration that cannot work.
    public init(environment: ServerAPIEnvironment, httpClient: HTTPClient, tokens: AppStoreConnectTokenProvider,
                configuration: ServerAPIConfiguration = .init(), gate: any ServerAPIRequestGate = UngatedRequests(),
                now: @escaping @Sendable () -> Date = { Date() }, observer: (any ServerAPICallObserver)? = nil) throws {
        try configuration.validate()
        self.environment = environment
        self.configuration = configuration
        self.httpClient = httpClient
        self.tokens = tokens
        self.gate = gate
        self.now = now
        self.observer = observer
    }

    /// The app whose token this client sends.
    public var bundleId: String { tokens.configuration.bundleId }

    /// Sends one request and returns the body of a 2xx answer.
    func perform(_ endpoint: ServerAPIEndpoint, _ method: HTTPMethod, path: String,
                 query: [(String, String)] = [], body: [UInt8]? = nil) async throws -> [UInt8] {
        let url = configuration.baseURL(for: environment) + path + ServerAPIPath.query(query)
        try await gate.permit(endpoint, environment: environment, bundleId: bundleId)
        ServerAPIMetrics.permitted(endpoint)
        var headers = [
            "Authorization": try tokens.token().bearerHeaderValue,
            "Accept": "application/json",
            "User-Agent": configuration.userAgent,
        ]
        if body != nil { headers["Content-Type"] = "application/json" }
        let response: HTTPResponse
        let sent = ContinuousClock.now
        do {
            response = try await httpClient.send(method, url: url, headers: headers, body: body ?? [], timeout: configuration.requestTimeout)
        } catch let error as HTTPClientError {
            let duration = ContinuousClock.now - sent
            ServerAPIMetrics.called(endpoint, status: error == .timeout ? "timeout" : "network", duration: duration)
            observer?.called(endpoint, environment: environment, status: nil, duration: duration)
            throw error == .timeout ? ServerAPIError(.timeout) : ServerAPIError(.network, detail: error.description)
        }
        let duration = ContinuousClock.now - sent
        ServerAPIMetrics.called(endpoint, status: String(response.status), duration: duration)
        observer?.called(endpoint, environment: environment, status: response.status, duration: duration)
        switch ServerAPIClassification.classify(httpStatus: response.status, body: response.body,
                                                retryAfter: response[header: "Retry-After"], now: now()) {
        case .success:
            return response.body
        case .failure(let error):
            if case .rateLimited(let until) = error.kind {
                let resume = until ?? now().addingTimeInterval(configuration.defaultRateLimitPause.timeInterval)
                await gate.pause(endpoint, environment: environment, bundleId: bundleId, until: resume)
                ServerAPIMetrics.paused(endpoint)
            }
            throw error
        }
    }

    /// Sends one request and decodes a 2xx body as `T`.
    func perform<T: Decodable>(_ endpoint: ServerAPIEndpoint, _ method: HTTPMethod, path: String, query: [(String, String)] = [],
                               body: [UInt8]? = nil, as type: T.Type) async throws -> T {
        let bytes = try await perform(endpoint, method, path: path, query: query, body: body)
        guard let value = ServerAPIJSON.decode(type, from: bytes) else {
            throw ServerAPIError(.unreadableResponse, httpStatus: 200, detail: "body is not a JSON \(T.self)")
        }
        return value
    }
}
