import AppStoreServerAPI
import ArgumentParser
import CommandSupport
import Foundation
import HTTPClient
import Postgres
import ReceiptQueue
import Support
import Worker

/// What every `receiptq support …` command sets up: the database (one login: a
/// `receiptq_support` member reads and writes), and the App Store Server API when configured,
/// taking turns in the fleet's rate budget.
struct SupportSession {
    let pool: PostgresPool
    let http: HTTPClient?
    let operations: SupportOperations

    init(database: DatabaseOptions, serverAPI: ServerAPIOptions?, name: String = "receiptq-support") throws {
        let environment = EnvironmentReader()
        pool = PostgresPool(configuration: try database.configuration(applicationName: name), size: 2)
        var apple: SupportApple?
        if let serverAPI, serverAPI.isConfigured(environment) {
            let settings = try serverAPI.settings(environment)
            let http = HTTPClient(configuration: HTTPClientConfiguration(maxTotalConnections: 8, maxIdleConnections: 8))
            self.http = http
            apple = SupportApple(clients: try ServerAPIWiring.clients(settings, http: http, budgetPool: pool),
                                 verifier: { try settings.verifier(for: $0) })
        } else {
            http = nil
        }
        operations = SupportOperations(readonly: pool, admin: pool, apple: apple)
    }

    /// Runs `body`, prints its answer, closes; a `SupportError` becomes a one-line message.
    static func run(database: DatabaseOptions, serverAPI: ServerAPIOptions?, _ body: (SupportOperations) async throws -> String) async throws {
        LogSetup.bootstrap(label: "receiptq.support", defaultLevel: .warning)
        let session = try SupportSession(database: database, serverAPI: serverAPI)
        do {
            let answer = try await body(session.operations)
            await session.close()
            print(answer)
        } catch let error as SupportError {
            await session.close()
            throw ValidationError(error.message)
        } catch {
            await session.close()
            throw error
        }
    }

    func close() async {
        pool.shutdown()
        await http?.shutdown()
    }
}

/// `--operator` and `--why`: who does a write and why, for its audit row.
struct SupportActorOptions: ParsableArguments {
    @Option(name: .customLong("operator"), help: "Your name, as the audit log records it (required for changes).")
    var operatorName: String

    @Option(help: "Why (required for changes): the audit log keeps it.")
    var why: String

    func action() throws -> SupportAction {
        do {
            return try SupportAction(actor: operatorName, why: why)
        } catch {
            throw ValidationError("--operator / --why: \(error.message)")
        }
    }
}
