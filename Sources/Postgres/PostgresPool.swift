import Foundation
import Logging

/// A fixed set of connections, each owned by a thread of its own, usable from async code.
///
/// Why threads: every libpq call blocks. Swift's cooperative pool has one thread per core (two
/// here), so one blocking call there stalls every task in the process. Work submitted through
/// `withConnection` waits in a FIFO queue for a free connection thread; the awaiting task is
/// suspended, not blocked.
///
/// Connections are opened lazily and reopened after they break (a server restart, a network
/// failure): the work that saw the failure gets the error, the next work gets a new connection.
/// Statements are never retried silently — whether a write happened is for the caller to decide.
public final class PostgresPool: Sendable {
    public let configuration: PostgresConfiguration
    /// Number of connections (and threads). Default 4.
    public let size: Int
    /// What the pool is for, as `/metrics` labels it (`receiptq_db_pool_*{pool=…}`).
    public let name: String
    private let queue = WorkQueue()

    /// - Parameter name: what the pool is for (the metrics' `pool` label); the configuration's
    ///   application name when nil.
    public init(configuration: PostgresConfiguration, size: Int = 4, name: String? = nil, logger: Logger = Logger(label: "receiptq.postgres")) {
        precondition(size > 0, "a pool needs at least one connection")
        self.configuration = configuration
        self.size = size
        self.name = name ?? configuration.applicationName
        for index in 0..<size {
            // Named from inside, through the kernel: a new thread inherits its creator's name on
            // Linux, and Foundation's `Thread.name` setter did not always reach the kernel.
            Thread { [queue] in
                Thread.current.name = "postgres-\(index)"
                try? "postgres-\(index)".write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
                ConnectionThread(configuration: configuration, queue: queue, logger: logger).run()
            }.start()
        }
        PostgresPools.register(self)
    }

    /// What the pool is doing now (`PostgresPools.statistics()` reports every pool's).
    public func statistics() -> PostgresPoolStatistics {
        var statistics = queue.statistics()
        statistics.size = size
        return statistics
    }

    /// Runs `body` on a pool thread with a connection to itself. A thrown error propagates;
    /// a `.connection` error means the connection was discarded.
    public func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let accepted = queue.submit { connection in
                let result = Result { try body(try connection.get()) }
                return { continuation.resume(with: result) }
            }
            if !accepted {
                continuation.resume(throwing: PostgresError(.poolClosed, "the database pool is shut down"))
            }
        }
    }

    /// Runs `body` in one transaction (BEGIN … COMMIT; ROLLBACK on error).
    @discardableResult
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await withConnection { try $0.transaction(body) }
    }

    /// Runs one statement.
    @discardableResult
    public func query(_ sql: String, _ parameters: [(any PostgresEncodable)?] = []) async throws -> PostgresRows {
        try await withConnection { try $0.query(sql, parameters) }
    }

    /// Stops the threads after the work already queued; later submissions fail with `.poolClosed`.
    public func shutdown() {
        queue.close()
        PostgresPools.unregister(self)
    }
}

/// Work for a connection thread: it runs on the connection and returns how to hand its result
/// back, which the thread calls once its own counts are up to date (so a caller that sees the
/// result also sees the statistics after it).
typealias PoolWork = @Sendable (Result<PostgresConnection, Error>) -> @Sendable () -> Void

/// The FIFO of work waiting for a connection thread, and the counts its statistics read.
final class WorkQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [(work: PoolWork, submitted: UInt64)] = []
    private var head = 0
    private var closed = false
    private var counts = PostgresPoolStatistics()

    func submit(_ work: @escaping PoolWork) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return false }
        items.append((work, DispatchTime.now().uptimeNanoseconds))
        condition.signal()
        return true
    }

    /// Blocks until work arrives; `nil` once closed and drained. The caller runs it, then calls
    /// `finished()`.
    func next() -> PoolWork? {
        condition.lock()
        defer { condition.unlock() }
        while head == items.count && !closed { condition.wait() }
        guard head < items.count else { return nil }
        let item = items[head]
        head += 1
        if head > 1024 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        counts.inUse += 1
        counts.acquired += 1
        counts.waitSeconds += Double(DispatchTime.now().uptimeNanoseconds &- item.submitted) / 1e9
        return item.work
    }

    /// The work `next()` handed out has returned.
    func finished() { locked { $0.inUse -= 1 } }

    /// A connection thread opened (+1) or dropped (-1) its connection.
    func connections(_ change: Int) { locked { $0.open += change } }

    func statistics() -> PostgresPoolStatistics {
        condition.lock()
        defer { condition.unlock() }
        var statistics = counts
        statistics.waiting = items.count - head
        return statistics
    }

    private func locked(_ change: (inout PostgresPoolStatistics) -> Void) {
        condition.lock()
        change(&counts)
        condition.unlock()
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}

/// The loop of one pool thread: owns at most one connection and reopens it when it broke.
struct ConnectionThread {
    let configuration: PostgresConfiguration
    let queue: WorkQueue
    let logger: Logger

    func run() {
        var connection: PostgresConnection?
        while let work = queue.next() {
            if connection?.isHealthy == false {
                connection = nil
                queue.connections(-1)
            }
            if connection == nil {
                do {
                    connection = try PostgresConnection(configuration: configuration)
                    queue.connections(+1)
                } catch {
                    logger.warning("database connection failed", metadata: ["error": "\(error)"])
                    let handBack = work(.failure(error))
                    queue.finished()
                    handBack()
                    continue
                }
            }
            let handBack = work(.success(connection!))
            if connection?.isHealthy == false {
                logger.warning("database connection lost; it will be reopened on next use")
                connection = nil
                queue.connections(-1)
            }
            queue.finished()
            handBack()
        }
        if connection != nil { queue.connections(-1) }
    }
}
