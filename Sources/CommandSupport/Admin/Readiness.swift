/// What `/readyz` answers: ready, or not and why (one terse line: it may reach a load balancer's
/// log, never a password or a query).
public struct Readiness: Sendable, Equatable {
    public var isReady: Bool
    public var reason: String?

    public static let ready = Readiness(isReady: true, reason: nil)

    public static func notReady(_ reason: String) -> Readiness {
        Readiness(isReady: false, reason: reason)
    }
}
