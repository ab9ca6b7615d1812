import CoreMetrics
import AppStoreServerAPI
import AppleSignedData
import Foundation
import Logging
import Postgres
import ReceiptQueue
import ServiceLifecycle

/// Gap recovery, inside `receiptq scheduler` when App Store Server API credentials are given:
/// at start and then every `interval`, reads Get Notification History from each environment's
/// high-water mark (less an overlap) to now, verifies every notification as the API does, and
/// stores the ones we never received (`source = history`, deduplicated by notificationUUID), so a
/// notification lost while the API was down, or answered with an error Apple stopped retrying,
/// still reaches the ledger. The mark advances only after everything read was stored.
/// `receiptq.notification_health` shows the mark, the last run and its error.
public final class NotificationHistoryRecovery: Service, Sendable {
    public struct Configuration: Sendable {
        /// Default 10 minutes.
        public var interval: Duration
        /// Read again before the mark. Default 1 h (Apple reports notifications arriving an hour late).
        public var overlap: Duration
        /// How far back the very first run reads. Default 24 h.
        public var initialLookback: Duration
        public var environments: [ServerAPIEnvironment]

        public init(interval: Duration = .seconds(600), overlap: Duration = .seconds(3600), initialLookback: Duration = .seconds(86_400),
                    environments: [ServerAPIEnvironment] = [.production, .sandbox]) {
            self.interval = interval
            self.overlap = overlap
            self.initialLookback = initialLookback
            self.environments = environments
        }
    }

    public struct Run: Sendable, Equatable {
        public var read = 0
        public var recovered = 0
        public var refused = 0
    }

    public let configuration: Configuration
    private let pool: PostgresPool
    private let clients: ServerAPIClients
    private let verifier: SignedTransactionVerifier
    private let logger: Logger

    public init(configuration: Configuration, pool: PostgresPool, clients: ServerAPIClients, verifier: SignedTransactionVerifier, logger: Logger) {
        self.configuration = configuration
        self.pool = pool
        self.clients = clients
        self.verifier = verifier
        self.logger = logger
    }

    /// Runs until graceful shutdown, which cancels at once both the wait between runs (10 minutes
    /// by default: waited out, it held SIGTERM that long) and a run waiting for Apple (abandoned:
    /// its mark does not move, the next run reads the same window).
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                for environment in self.configuration.environments where !Task.isCancelled {
                    _ = await self.recover(environment)
                }
                try? await Task.sleep(for: self.configuration.interval)
            }
        }
    }

    /// One recovery of `environment` (also called by tests and `receiptq notifications recover`);
    /// nil when another run did it recently or it failed (the error is kept in the mark).
    @discardableResult
    public func recover(_ environment: ServerAPIEnvironment, minimumGap: Duration? = nil) async -> Run? {
        let name = environment.signedDataEnvironment.rawValue
        let (lookback, gap) = (configuration.initialLookback, minimumGap ?? configuration.interval / 2)
        do {
            guard let mark = try await pool.withConnection({
                try NotificationRecoveryMark.claim(environment: name, initialLookback: lookback, minimumGap: gap, on: $0)
            }) else { return nil }
            let window = RecoveryWindow(checkedThrough: mark.checkedThrough, now: mark.now, overlap: configuration.overlap)
            let items = try await clients.client(for: environment).getFullNotificationHistory(
                NotificationHistoryRequest(startDate: window.start, endDate: window.end))
            var run = Run(read: items.count)
            var found: [NewNotification] = []
            for payload in items.compactMap(\.signedPayload) {
                guard let verified = try? await verifier.verifyNotification(payload), let identity = try? verified.identity() else {
                    run.refused += 1
                    continue
                }
                found.append(NewNotification(
                    uuid: identity.uuid, type: identity.type, subtype: identity.subtype, environment: verified.environment.rawValue,
                    signedDate: identity.signedAt, originalTransactionID: identity.originalTransactionID,
                    transactionID: identity.transactionID, signedPayload: payload, source: .history))
            }
            let stored = found
            let created = try await pool.withConnection { try EnqueueNotifications.run(stored, on: $0) }
            run.recovered = created.filter { $0 }.count
            Counter(label: WorkerMetrics.notificationsRecoveredTotal, dimensions: [("environment", name)]).increment(by: run.recovered)
            let recovered = run.recovered
            try await pool.withConnection {
                try NotificationRecoveryMark.advance(environment: name, through: window.end, recovered: recovered, on: $0)
            }
            if run.recovered > 0 || run.refused > 0 {
                logger.warning("notification history recovered notifications we never received", metadata: [
                    "environment": "\(name)", "read": "\(run.read)", "recovered": "\(run.recovered)", "refused": "\(run.refused)"])
            }
            return run
        } catch where Task.isCancelled {
            // Stopping: Apple's answer was abandoned. Not a failure; the mark stays where it was.
            logger.notice("notification history recovery interrupted by shutdown; the next run reads the same window",
                          metadata: ["environment": "\(name)"])
            return nil
        } catch {
            let message = "\(error)"
            _ = try? await pool.withConnection { try NotificationRecoveryMark.failed(environment: name, error: message, on: $0) }
            logger.error("notification history recovery failed; the next run reads the same window",
                         metadata: ["environment": "\(name)", "error": "\(message.prefix(200))"])
            return nil
        }
    }
}
