import Logging
import Postgres
import ServiceLifecycle

/// The one LISTEN connection of an API process: every NOTIFY on `receiptq_results` (payload:
/// the ids of jobs that reached a terminal state, comma-separated — one NOTIFY per statement's
/// 300 jobs, `receiptq.notify_jobs_finished`) wakes those jobs' long-poll waiters. After each
/// (re)connection it wakes all waiters, who re-read the table, since notifications sent while
/// disconnected are lost.
struct ResultListener: Service {
    static let channel = "receiptq_results"

    let database: PostgresConfiguration
    let waiters: ResultWaiters
    let logger: Logger
    /// Called once LISTEN is first in effect (tests and readiness wait for it).
    var onListening: @Sendable () -> Void = {}

    /// The job ids a `receiptq_results` payload names; anything that is not an id is skipped.
    static func jobIDs(in payload: String) -> [Int64] {
        payload.split(separator: ",").compactMap { Int64($0) }
    }

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
                        for id in Self.jobIDs(in: notification.payload) { waiters.signal(job: id) }
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
