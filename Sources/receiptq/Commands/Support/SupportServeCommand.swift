import ArgumentParser
import CommandSupport
import Foundation
import HTTPClient
import Logging
import Postgres
import ServiceLifecycle
import Support

/// `receiptq support serve`: the support listener — the admin API (`/support/v1`) and the web
/// console (`/console`) — with credentials of its own and two database logins: the read-only one
/// for every read, the `receiptq_support` one for audited writes. Not part of any other process:
/// the console is off unless this runs.
struct SupportServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the support admin API and the web console (off unless started; own credentials).")

    @OptionGroup(title: "Database (the receiptq_support login: writes)") var database: DatabaseOptions
    @OptionGroup(title: "App Store Server API and signed data") var serverAPI: ServerAPIOptions

    @Option(help: "The receiptq_readonly login every read uses (PostgreSQL URI). Default: none (required).")
    var readonlyDatabaseUrl: String?

    @Option(help: "File of operators, one per line: name admin|readonly sha256-hex-of-token. Default: none (required).")
    var supportCredentialsFile: String?

    @Option(help: "Address to listen on. Default: 127.0.0.1.")
    var supportHost: String = "127.0.0.1"

    @Option(help: "Port to listen on. Default: 8090.")
    var supportPort: Int = 8090

    @Flag(help: "Serve only the admin API, not the web console. Default: off (both).")
    var noConsole = false

    /// Off by default, as the worker's: a deployment that probes the console turns it on.
    @OptionGroup(title: "Admin listener (/metrics, /healthz, /readyz: ready once the console listens and the read-only login answers)")
    var adminListener: AdminOptions

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.support")
        let logger = Logger(label: "receiptq.support")
        guard (0...65_535).contains(supportPort) else { throw ConfigurationError("--support-port must be 0…65535") }
        guard let file = supportCredentialsFile else { throw ConfigurationError("--support-credentials-file is required: the console has its own logins") }
        let credentials: SupportCredentials
        do {
            credentials = try SupportCredentials(text: try String(contentsOfFile: file, encoding: .utf8))
        } catch let error as SupportCredentialsError {
            throw ConfigurationError("--support-credentials-file: \(error)")
        } catch {
            throw ConfigurationError("--support-credentials-file: cannot read \(file)")
        }
        guard credentials.count > 0 else { throw ConfigurationError("--support-credentials-file names no operator") }
        guard let readonlyURL = readonlyDatabaseUrl else {
            throw ConfigurationError("--readonly-database-url is required: reads use the receiptq_readonly login, writes the receiptq_support one")
        }
        let readonlyConfiguration: PostgresConfiguration
        do {
            readonlyConfiguration = try PostgresConfiguration(connectionString: readonlyURL, applicationName: "receiptq-support-readonly")
        } catch {
            throw ConfigurationError("--readonly-database-url: \(error)")
        }
        let adminSettings = try adminListener.configuration(defaultPort: 0)
        guard adminSettings.port != supportPort || adminSettings.port == 0 else {
            throw ConfigurationError("--admin-port must differ from --support-port: probes and metrics are never served on the console's port")
        }
        let readonly = PostgresPool(configuration: readonlyConfiguration, size: 4, name: "support-readonly", logger: logger)
        let admin = PostgresPool(configuration: try database.configuration(applicationName: "receiptq-support"), size: 2, name: "support", logger: logger)
        let environment = EnvironmentReader()
        var apple: SupportApple?
        var http: HTTPClient?
        if serverAPI.isConfigured(environment) {
            let settings = try serverAPI.settings(environment)
            let client = HTTPClient(configuration: HTTPClientConfiguration(maxTotalConnections: 16, maxIdleConnections: 8))
            http = client
            apple = SupportApple(clients: try ServerAPIWiring.clients(settings, http: client, budgetPool: admin),
                                 verifier: { try settings.verifier(for: $0) })
        }
        let listening = ListenerGate()
        let host = supportHost
        let server = SupportServer(
            configuration: SupportServerConfiguration(host: supportHost, port: supportPort, credentials: credentials, console: !noConsole),
            operations: SupportOperations(readonly: readonly, admin: admin, apple: apple), logger: logger,
            onListening: { port in
                listening.open()
                print("support listening on http://\(host):\(port)/ (console: /console)")
            })
        var services: [any Service] = [server]
        if adminSettings.isEnabled {
            // Every page reads through the read-only login: the console is ready when it answers.
            services.insert(AdminServer(configuration: adminSettings,
                                        readiness: ReadinessProbe(database: readonlyConfiguration, listener: listening, logger: logger),
                                        logger: logger), at: 0)
        }
        let group = ProcessServiceGroup.make(services: services, shutdownBudget: .seconds(4), logger: logger)
        try await group.run()
        readonly.shutdown()
        admin.shutdown()
        await http?.shutdown()
    }
}
