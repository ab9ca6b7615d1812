import Synchronization

/// Whether a process's public listener is bound yet. The admin listener starts beside it, and on
/// a busy machine answered `/readyz` 200 while the public port still refused connections: a
/// Kubernetes readiness probe (or a test) then sent traffic to a closed port. The API opens this
/// gate from its server's `onServerRunning`; `ReadinessProbe` is not ready until it is open.
public final class ListenerGate: Sendable {
    private let bound = Atomic(false)

    public init() {}

    /// The public listener accepts connections now.
    public func open() { bound.store(true, ordering: .releasing) }

    public var isOpen: Bool { bound.load(ordering: .acquiring) }
}
