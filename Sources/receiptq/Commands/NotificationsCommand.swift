import AppStoreServerAPI
import AppleSignedData
import ArgumentParser
import CommandSupport
import Foundation
import Postgres
import ReceiptQueue
import Worker

/// `receiptq notifications …`: App Store Server Notifications by hand — prove the whole path works
/// (`test`), recover what never arrived now (`recover`), re-apply failed ones (`redrive`).
struct NotificationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications",
        abstract: "Test the notification path end to end, recover missed notifications, re-drive failed ones.",
        subcommands: [Test.self, Recover.self, Redrive.self])

    /// `test`: Apple sends a TEST notification to the URL registered in App Store Connect; this
    /// waits until Apple reports its attempt and the notification is stored and applied here.
    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ask Apple for a TEST notification and wait until it is stored and applied here (exit 1 if not).")

        @OptionGroup(title: "Database") var database: DatabaseOptions
        @OptionGroup(title: "App Store Server API and signed data") var options: ServerAPIOptions
        @Flag(help: "Ask the sandbox. Default: off (production).") var sandbox = false
        @Option(help: "How long to wait for the notification to arrive and be applied. Default: 1m.") var wait: Duration?

        func run() async throws {
            LogSetup.bootstrap(label: "receiptq.notifications", defaultLevel: .warning)
            let session = try ServerAPISession(options: options, database: database)
            let pool = PostgresPool(configuration: try database.configuration(applicationName: "receiptq-notifications"), size: 1)
            do {
                try await probe(session, pool)
                pool.shutdown()
                await session.close()
            } catch {
                pool.shutdown()
                await session.close()
                throw error
            }
        }

        private func probe(_ session: ServerAPISession, _ pool: PostgresPool) async throws {
            let environment: ServerAPIEnvironment = sandbox ? .sandbox : .production
            let client = session.clients.client(for: environment)
            guard let token = try await client.requestTestNotification().testNotificationToken else {
                throw ServerAPIError(.unreadableResponse, detail: "no testNotificationToken")
            }
            print("requested a TEST notification from \(environment.signedDataEnvironment.rawValue)")
            let deadline = ContinuousClock.now + (wait ?? .seconds(60))
            var uuid: UUID?
            var attempt: String?
            var stood: (state: String, outcome: String?)?
            while ContinuousClock.now < deadline {
                try await Task.sleep(for: .seconds(1.1))   // Apple allows one status request a second
                if uuid == nil {
                    let status = try await client.getTestNotificationStatus(testNotificationToken: token)
                    attempt = status.sendAttempts?.last?.sendAttemptResult
                    if let payload = status.signedPayload {
                        let verified = try await session.settings.verifier(for: environment).verifyNotification(payload)
                        uuid = verified.notificationUUID.flatMap(UUID.init(uuidString:))
                    }
                }
                if let uuid {
                    stood = try await pool.withConnection { try NotificationState.run(uuid, on: $0) }
                    if stood?.state == "applied" { break }
                }
            }
            print("Apple's attempt: \(attempt ?? "none recorded")")
            guard let uuid else { throw ExitCode.failure }
            print("notification \(uuid.uuidString.lowercased()): \(stood.map { "\($0.state)\($0.outcome.map { " (\($0))" } ?? "")" } ?? "never stored here — is the URL in App Store Connect this API's /v1/apple/notifications, and does the API run with --bundle-ids?")")
            if stood?.state != "applied" { throw ExitCode.failure }
        }
    }

    /// `recover`: one history recovery now (the scheduler runs it every 10 minutes).
    struct Recover: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read Get Notification History now and store the notifications never received.")

        @OptionGroup(title: "Database") var database: DatabaseOptions
        @OptionGroup(title: "App Store Server API and signed data") var options: ServerAPIOptions
        @Flag(help: "Recover the sandbox's. Default: off (production's).") var sandbox = false

        func run() async throws {
            let logger = LogSetup.bootstrap(label: "receiptq.notifications", defaultLevel: .warning)
            let session = try ServerAPISession(options: options, database: database)
            let pool = PostgresPool(configuration: try database.configuration(applicationName: "receiptq-notifications"), size: 1)
            let settings = session.settings
            let recovery = NotificationHistoryRecovery(
                configuration: .init(), pool: pool, clients: session.clients,
                verifier: try SignedTransactionVerifier(trustedRoots: settings.trustedRoots, bundleIds: [settings.bundleId],
                                                        appAppleId: settings.appAppleId), logger: logger)
            let run = await recovery.recover(sandbox ? .sandbox : .production, minimumGap: .zero)
            pool.shutdown()
            await session.close()
            guard let run else { throw ValidationError("recovery failed: see receiptq.notification_health (history_last_error)") }
            print("read \(run.read) notifications from Apple's history, stored \(run.recovered) never received, refused \(run.refused)")
        }
    }

    /// `redrive`: failed notifications back to the queue.
    struct Redrive: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Put failed or quarantined notifications back in the queue (after fixing their cause).",
            discussion: """
                Give --uuid for particular notifications, --failed-within for every failed one received recently, or \
                --quarantined for every one Apple signed that the API's configuration refused (fix the bundle ids, app id \
                or roots first: a worker verifies each again before it applies it).
                """)

        @OptionGroup(title: "Database") var database: DatabaseOptions
        @Option(name: .customLong("uuid"), help: "A failed notification's notificationUUID (repeatable).") var uuids: [String] = []
        @Option(help: "Every failed notification received within this long, e.g. 7d.") var failedWithin: Duration?
        @Flag(help: "Every quarantined notification (Apple's, refused by the API's configuration).") var quarantined = false

        func validate() throws {
            guard [!uuids.isEmpty, failedWithin != nil, quarantined].filter({ $0 }).count == 1 else {
                throw ValidationError("give one of --uuid, --failed-within or --quarantined")
            }
            for uuid in uuids where UUID(uuidString: uuid) == nil { throw ValidationError("--uuid \(uuid) is not a UUID") }
            if let failedWithin, failedWithin <= .zero { throw ValidationError("--failed-within must be positive") }
        }

        func run() async throws {
            LogSetup.bootstrap(label: "receiptq.notifications", defaultLevel: .error)
            let pool = PostgresPool(configuration: try database.configuration(applicationName: "receiptq-notifications"), size: 1)
            defer { pool.shutdown() }
            let (ids, since) = (uuids.compactMap(UUID.init(uuidString:)), failedWithin)
            let moved = try await pool.withConnection { connection in
                if quarantined { return try RedriveNotifications.runQuarantined(on: connection) }
                if let since { return try RedriveNotifications.run(receivedWithin: since, on: connection) }
                return try RedriveNotifications.run(uuids: ids, on: connection)
            }
            try await pool.query("SELECT pg_notify('receiptq_notifications', '')")
            print("re-drove \(moved.count) \(quarantined ? "quarantined" : "failed") notifications")
        }
    }
}
