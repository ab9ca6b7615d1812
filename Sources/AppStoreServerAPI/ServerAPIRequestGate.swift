import Foundation

/// Where a client asks before each call whether Apple's rate budget allows it, and reports a 429.
/// Apple's limits are per app and per endpoint, shared by every process that calls Apple, so a
/// gate shared through the database (the worker's `FleetRateLimiter`) lets a fleet use the whole
/// budget without 429s; `UngatedRequests` lets every call through (tools, tests).
public protocol ServerAPIRequestGate: Sendable {
    /// Returns once one request to `endpoint` may be sent now. Throws `CancellationError` when the
    /// caller is cancelled while it waits, or the gate's own error when it cannot decide.
    func permit(_ endpoint: ServerAPIEndpoint, environment: ServerAPIEnvironment, bundleId: String) async throws
    /// Apple answered 429: no request to `endpoint` until `until`, for every user of the gate.
    func pause(_ endpoint: ServerAPIEndpoint, environment: ServerAPIEnvironment, bundleId: String, until: Date) async
}

/// A gate that never waits: for one-off tools and tests that want to see Apple's own 429s.
public struct UngatedRequests: ServerAPIRequestGate {
    public init() {}
    public func permit(_ endpoint: ServerAPIEndpoint, environment: ServerAPIEnvironment, bundleId: String) async throws {}
    public func pause(_ endpoint: ServerAPIEndpoint, environment: ServerAPIEnvironment, bundleId: String, until: Date) async {}
}
