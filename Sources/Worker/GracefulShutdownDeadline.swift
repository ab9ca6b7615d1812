import ServiceLifecycle

/// Runs `operation`, which graceful shutdown does not stop but gives `deadline` more to finish:
/// then it is cancelled. For work in flight at SIGTERM that may end on its own — a call to
/// Apple — but must not hold the process past its shutdown deadline (a call can take 30 s).
/// Outside a `ServiceGroup`, or when the operation ends first, nothing is cancelled.
func cancelAfterGracefulShutdown<T: Sendable>(deadline: Duration, _ operation: @escaping @Sendable () async -> T) async -> T {
    await withTaskGroup(of: DeadlineRace<T>.self) { group in
        group.addTask { .finished(await operation()) }
        group.addTask {
            // Throws when cancelled: the operation ended first.
            if (try? await gracefulShutdown()) != nil { try? await Task.sleep(for: deadline) }
            return .deadlinePassed
        }
        var result: T?
        while let ended = await group.next() {
            if case .finished(let value) = ended { result = value }
            group.cancelAll()
        }
        return result!   // the operation's child always ends with its value
    }
}

/// Which child of `cancelAfterGracefulShutdown` ended.
private enum DeadlineRace<T: Sendable>: Sendable {
    case finished(T)
    case deadlinePassed
}
