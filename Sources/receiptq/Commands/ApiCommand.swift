import CommandSupport
import API
import ArgumentParser
import Foundation
import HTTPClient
import ServiceLifecycle

/// `receiptq api`: the HTTP front backends talk to. Reads flags, then the environment, validates
/// once, and runs `APIServer` in a service group that drains gracefully on SIGTERM/SIGINT.
struct ApiCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "api",
        abstract: "Serve the HTTP API: accept receipts durably, register orders, serve results, health and metrics.")

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var migrations: MigrationsOptions

    @Option(help: "Address to listen on. Default: $RECEIPTQ_API_HOST or 127.0.0.1.")
    var host: String?

    @Option(help: "Port to listen on (0: any free port). Default: $RECEIPTQ_API_PORT or 8080.")
    var port: Int?

    @Option(help: "File of hex SHA-256 token digests (one per line, # comments). Default: $RECEIPTQ_API_TOKENS (comma-separated).")
    var tokensFile: String?

    @Option(help: "Largest receipt_data accepted, in bytes.")
    var maxReceiptBytes = 512 * 1024

    @Option(help: "Requests per second per token (0: no limit).")
    var rateLimit: Double = 2_000

    @Option(help: "Burst allowed per token above the rate.")
    var rateBurst: Double = 4_000

    @Option(help: "Database connections (each with its own thread).")
    var poolSize = 8

    @Option(help: "Close a connection that sends no complete request part for this long (idle keep-alive, slowloris).")
    var idleTimeout: Duration = .seconds(20)

    @Flag(help: "Insert each receipt in its own statement and commit (for comparison only).")
    var noGroupCommit = false

    func validate() throws {
        guard maxReceiptBytes > 0 else { throw ValidationError("--max-receipt-bytes must be positive") }
        guard rateLimit >= 0, rateBurst >= 1 else { throw ValidationError("--rate-limit must be ≥ 0 and --rate-burst ≥ 1") }
        guard (1...256).contains(poolSize) else { throw ValidationError("--pool-size must be 1…256") }
        if let port, !(0...65_535).contains(port) { throw ValidationError("--port must be 0…65535") }
        guard idleTimeout >= .seconds(1) else { throw ValidationError("--idle-timeout must be at least 1s") }
    }

    func run() async throws {
        let logger = LogSetup.bootstrap(label: "receiptq.api")
        // Each client connection is a descriptor: thousands of them (slow clients included) need more than 1,024.
        FileDescriptorLimit.raise(to: 16_384, logger: logger)
        let environment = ProcessInfo.processInfo.environment
        var settings = APIConfiguration()
        settings.host = host ?? environment["RECEIPTQ_API_HOST"] ?? settings.host
        if let port {
            settings.port = port
        } else if let text = environment["RECEIPTQ_API_PORT"] {
            guard let value = Int(text), (0...65_535).contains(value) else {
                throw ConfigurationError("RECEIPTQ_API_PORT must be a port number")
            }
            settings.port = value
        }
        settings.tokens = try loadTokens(environment)
        settings.maxReceiptBytes = maxReceiptBytes
        settings.rateLimitPerSecond = rateLimit
        settings.rateLimitBurst = rateBurst
        settings.poolSize = poolSize
        settings.groupCommit.enabled = !noGroupCommit
        settings.idleTimeout = idleTimeout
        let files = try migrations.load()
        let config = try database.configuration(applicationName: "receiptq-api-\(getpid())")

        let server = APIServer(configuration: settings, database: config, migrations: files, logger: logger)
        let group = ServiceGroup(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        logger.info("api starting", metadata: ["database": "\(config.redacted)", "host": "\(settings.host)",
                                               "port": "\(settings.port)", "tokens": "\(settings.tokens.count)"])
        try await group.run()
    }

    /// Digests only; the command refuses to start with none (every request would be a 401).
    private func loadTokens(_ environment: [String: String]) throws -> TokenDigests {
        let text: String
        let source: String
        if let tokensFile {
            do { text = try String(contentsOfFile: tokensFile, encoding: .utf8) } catch {
                throw ConfigurationError("cannot read --tokens-file \(tokensFile)")
            }
            source = "--tokens-file"
        } else {
            text = environment["RECEIPTQ_API_TOKENS"] ?? ""
            source = "RECEIPTQ_API_TOKENS"
        }
        let tokens: TokenDigests
        do { tokens = try TokenDigests(hexList: text) } catch {
            throw ConfigurationError("\(source): \(error)")
        }
        guard !tokens.isEmpty else {
            throw ConfigurationError("no API tokens: set RECEIPTQ_API_TOKENS or --tokens-file to hex SHA-256 digests of the tokens")
        }
        return tokens
    }
}
