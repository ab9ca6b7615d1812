import AppStoreServerAPI
import AppleSignedData
import ArgumentParser
import CommandSupport
import Foundation
import HTTPClient
import Postgres
import Worker

/// `receiptq server-api …`: ask Apple's App Store Server API by hand, configured as the workers
/// are (`ServerAPIOptions`). With a database (`--database-url` / `DATABASE_URL`) every call takes
/// its turn in the fleet's rate budget, so an operator's lookups never cost the workers a 429.
struct ServerAPICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "server-api",
        abstract: "Look up a transaction or request a test notification through the App Store Server API.",
        subcommands: [ServerAPILookup.self, ServerAPITestNotification.self])
}

/// What both subcommands set up: settings, one HTTP client, the gate, clients per environment.
struct ServerAPISession {
    let settings: ServerAPISettings
    let http: HTTPClient
    let clients: ServerAPIClients
    let pool: PostgresPool?

    init(options: ServerAPIOptions, database: DatabaseOptions) throws {
        let environment = EnvironmentReader()
        settings = try options.settings(environment)
        http = HTTPClient(configuration: HTTPClientConfiguration(maxTotalConnections: 8, maxIdleConnections: 8))
        var gate: any ServerAPIRequestGate = UngatedRequests()
        if database.url != nil || environment.string("DATABASE_URL") != nil {
            let pool = PostgresPool(configuration: try database.configuration(applicationName: "receiptq-server-api"), size: 1)
            gate = FleetRateLimiter(store: PostgresRateBudgetStore(pool: pool),
                                    configuration: FleetRateLimiterConfiguration(limits: settings.limits), clock: ContinuousClock())
            self.pool = pool
        } else {
            pool = nil
        }
        let tokens = try settings.tokens()
        let (api, http) = (settings.api, http)
        clients = ServerAPIClients(
            production: try AppStoreServerAPIClient(environment: .production, httpClient: http, tokens: tokens, configuration: api, gate: gate),
            sandbox: try AppStoreServerAPIClient(environment: .sandbox, httpClient: http, tokens: tokens, configuration: api, gate: gate))
    }

    func close() async {
        pool?.shutdown()
        await http.shutdown()
    }
}

/// `receiptq server-api lookup TRANSACTION_ID`: production first, then the sandbox; prints the
/// verified transaction as JSON (decoded fields, never the signed text).
struct ServerAPILookup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lookup",
        abstract: "Get Transaction Info (production, then sandbox), verify it, print the transaction as JSON.")

    @OptionGroup(title: "Database") var database: DatabaseOptions
    @OptionGroup(title: "App Store Server API and signed data") var options: ServerAPIOptions
    @Argument(help: "The transaction id (or original transaction id).") var transactionId: String

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.server-api", defaultLevel: .warning)
        let session = try ServerAPISession(options: options, database: database)
        do {
            let (environment, info) = try await session.clients.inEitherEnvironment {
                try await $0.getTransactionInfo(transactionId: transactionId)
            }
            guard let signed = info.signedTransactionInfo else { throw ServerAPIError(.unreadableResponse, detail: "no signedTransactionInfo") }
            let transaction = try await session.settings.verifier(for: environment).verifyTransaction(signed)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(transaction), as: UTF8.self))
            await session.close()
        } catch let error as ServerAPIError where error.kind == .transactionNotFound {
            await session.close()
            throw ValidationError("transaction \(transactionId) not found in production or the sandbox")
        } catch {
            await session.close()
            throw error
        }
    }
}

/// `receiptq server-api test-notification`: asks Apple to send a TEST notification to the app's
/// notification URL, then prints what Apple recorded of the attempt.
struct ServerAPITestNotification: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test-notification",
        abstract: "Request a Test Notification, wait for Apple's attempt, print its result.")

    @OptionGroup(title: "Database") var database: DatabaseOptions
    @OptionGroup(title: "App Store Server API and signed data") var options: ServerAPIOptions
    @Flag(help: "Ask the sandbox. Default: off (production).") var sandbox = false
    @Option(help: "How long to wait for Apple's attempt. Default: 30s.") var wait: Duration?

    func run() async throws {
        let wait = self.wait ?? .seconds(30)
        LogSetup.bootstrap(label: "receiptq.server-api", defaultLevel: .warning)
        let session = try ServerAPISession(options: options, database: database)
        let client = session.clients.client(for: sandbox ? .sandbox : .production)
        do {
            guard let token = try await client.requestTestNotification().testNotificationToken else {
                throw ServerAPIError(.unreadableResponse, detail: "no testNotificationToken")
            }
            let deadline = ContinuousClock.now + wait
            var result: String?
            while result == nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .seconds(1.1))   // Apple allows one status request a second
                result = try await client.getTestNotificationStatus(testNotificationToken: token).sendAttempts?.last?.sendAttemptResult
            }
            print(result.map { "test notification: \($0)" } ?? "test notification: no attempt recorded within \(wait.argumentText)")
            await session.close()
        } catch {
            await session.close()
            throw error
        }
    }
}
