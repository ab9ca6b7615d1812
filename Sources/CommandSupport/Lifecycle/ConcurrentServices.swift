import ServiceLifecycle

/// Services run side by side as one, so that graceful shutdown reaches all of them at once.
///
/// Why: a `ServiceGroup` shuts its services down one after another, in reverse order, telling
/// the next only when the previous one has returned. A worker's services each drain for up to
/// the shutdown deadline (verifications, Server API lookups, webhook deliveries), so one after
/// another their deadlines added up, and the receipt worker went on claiming while the others
/// drained. Inside this service they share the group's shutdown trigger (a task-local their
/// child tasks inherit), hear it together and drain in parallel: the process stops within one
/// deadline.
///
/// A service that returns leaves the others running (a webhook deliverer with
/// `--webhook-concurrency 0` returns at once; in a `ServiceGroup` of its own that ended the
/// process). One that throws cancels the others, and the error ends the process.
public struct ConcurrentServices: Service, CustomStringConvertible {
    public let services: [any Service]

    public init(_ services: [any Service]) {
        self.services = services
    }

    public func run() async throws {
        try await withThrowingDiscardingTaskGroup { group in
            for service in services {
                group.addTask { try await service.run() }
            }
        }
    }

    public var description: String {
        "ConcurrentServices(\(services.map { "\(type(of: $0))" }.joined(separator: ", ")))"
    }
}
