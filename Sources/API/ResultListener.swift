import Logging
import Postgres
import ServiceLifecycle

/// The one LISTEN connection of an API process: every NOTIFY on `receiptq_results` (payload:
/// the id of a job that reached a terminal state) wakes that job's long-poll waiters. After each
/// (re)connection it wakes all waiters, who re-read the table, since notifications sent while
/// disconnected are lost.
struct ResultListener: Service {
    static let channel = "receiptq_results"

    let database: PostgresConfiguration
    let waiters: ResultWaiters
    let logger: Logger
    /// Called once LISTEN is first in effect (tests and readiness wait for it).
    var onListening: @Sendable () -> Void = {}

    func run() async throws {
        let listener = PostgresListener(configuration: database, channels: [Self.channel], logger: logger)
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                var first = true
                for await event in listener.events {
                    switch event {
                    case .listening:
                        waiters.signalAll()
                        if first { onListening(); first = false }
                    case .notification(let notification):
                        if let id = Int64(notification.payload) { waiters.signal(job: id) }
                    }
                }
            } onCancel: {
                listener.stop()
            }
        } onGracefulShutdown: {
            waiters.close()
            listener.stop()
        }
    }
}
