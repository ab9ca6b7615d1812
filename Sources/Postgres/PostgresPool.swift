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
    private let queue = WorkQueue()

    public init(configuration: PostgresConfiguration, size: Int = 4, logger: Logger = Logger(label: "receiptq.postgres")) {
        precondition(size > 0, "a pool needs at least one connection")
        self.configuration = configuration
        self.size = size
        for index in 0..<size {
            // Named from inside, through the kernel: a new thread inherits its creator's name on
            // Linux, and Foundation's `Thread.name` setter did not always reach the kernel.
            Thread { [queue] in
                Thread.current.name = "postgres-\(index)"
                try? "postgres-\(index)".write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
                ConnectionThread(configuration: configuration, queue: queue, logger: logger).run()
            }.start()
        }
    }

    /// Runs `body` on a pool thread with a connection to itself. A thrown error propagates;
    /// a `.connection` error means the connection was discarded.
    public func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let accepted = queue.submit { connection in
                do {
                    continuation.resume(returning: try body(try connection.get()))
                } catch {
                    continuation.resume(throwing: error)
                }
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
    public func shutdown() { queue.close() }
}

typealias PoolWork = @Sendable (Result<PostgresConnection, Error>) -> Void

/// The FIFO of work waiting for a connection thread.
final class WorkQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [PoolWork] = []
    private var head = 0
    private var closed = false

    func submit(_ work: @escaping PoolWork) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return false }
        items.append(work)
        condition.signal()
        return true
    }

    /// Blocks until work arrives; `nil` once closed and drained.
    func next() -> PoolWork? {
        condition.lock()
        defer { condition.unlock() }
        while head == items.count && !closed { condition.wait() }
        guard head < items.count else { return nil }
        let work = items[head]
        head += 1
        if head > 1024 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return work
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
            if connection == nil || connection?.isHealthy == false {
                do {
                    connection = try PostgresConnection(configuration: configuration)
                } catch {
                    connection = nil
                    logger.warning("database connection failed", metadata: ["error": "\(error)"])
                    work(.failure(error))
                    continue
                }
            }
            work(.success(connection!))
            if connection?.isHealthy == false {
                logger.warning("database connection lost; it will be reopened on next use")
                connection = nil
            }
        }
    }
}
