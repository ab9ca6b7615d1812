import Logging
import ServiceLifecycle

/// The service group of every long-running `receiptq` command. SIGTERM and SIGINT begin a
/// graceful shutdown; whatever is still running `shutdownBudget` later is cancelled.
///
/// Invariant 11: a process stops within 5 s of SIGTERM. Each service stops well within its
/// budget on its own (sleeps and waits are cancellable, drains have deadlines); the budget is
/// the backstop for what none of them controls — a client half-way through a request on the
/// API's port holds a graceful HTTP shutdown until its idle timeout, and cancellation closes it.
public enum ProcessServiceGroup {
    /// What the API, the scheduler and the fake App Store allow a graceful shutdown before
    /// cancelling: 3 s. Their own shutdowns take milliseconds; requests being answered finish
    /// long before, and a client still sending its request 3 s after SIGTERM is cut.
    public static let defaultShutdownBudget: Duration = .seconds(3)

    /// - Parameters:
    ///   - services: shut down in reverse order, one after another (`ConcurrentServices` for
    ///     services that must stop together).
    ///   - shutdownBudget: from the signal to cancellation.
    public static func make(services: [any Service], shutdownBudget: Duration = defaultShutdownBudget, logger: Logger) -> ServiceGroup {
        var configuration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = shutdownBudget
        return ServiceGroup(configuration: configuration)
    }
}
