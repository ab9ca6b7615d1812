import Logging
import Postgres
import ReceiptQueue
import ServiceLifecycle

/// Adds a process's `CallRecorder` sums to `receiptq.call_minutes` every `interval`, and once more
/// on graceful shutdown, so the console's latency, breaker and webhook charts see every call.
/// A failed write is logged and its rows restored for the next: the charts lag, the work never waits.
public struct CallMinutesWriter: Service {
    /// The name the rows are written under: the worker's `--name`, or `scheduler`.
    public let process: String
    public let interval: Duration
    let recorder: CallRecorder
    let pool: PostgresPool
    let logger: Logger

    /// - Parameter interval: default 5 s.
    public init(process: String, recorder: CallRecorder, interval: Duration = .seconds(5), pool: PostgresPool, logger: Logger) {
        self.process = process
        self.recorder = recorder
        self.interval = interval
        self.pool = pool
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                await write()
            }
        }
        await write()
    }

    /// Writes what was recorded since the last write.
    public func write() async {
        let rows = recorder.drain(), process = self.process
        guard !rows.isEmpty else { return }
        do {
            try await pool.withConnection { try CallMinutes.add(rows, process: process, on: $0) }
        } catch {
            recorder.restore(rows)
            logger.warning("call minutes not written", metadata: ["error": "\(error)", "rows": "\(rows.count)"])
        }
    }
}
