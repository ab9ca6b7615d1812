import API
import ArgumentParser
import CommandSupport
import Foundation
import HTTPClient
import Logging
import Postgres
import ReceiptQueue
import ServiceLifecycle

/// `receiptq api`: the HTTP front backends talk to. Reads flags, then the environment, validates
/// once, and runs `APIServer` in a service group that drains gracefully on SIGTERM/SIGINT.
struct ApiCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "api",
        abstract: "Serve the HTTP API: accept receipts durably, register orders, serve results; metrics and probes on the admin port.")

    @OptionGroup(title: "Database") var database: DatabaseOptions
    @OptionGroup(title: "Database") var migrations: MigrationsOptions
    @OptionGroup(title: "Signed data (StoreKit 2)") var signedData: SignedDataOptions
    @OptionGroup(title: "Admin listener") var admin: AdminOptions

    /// The API's admin listener is on by default (probes need it), next to the public 8080.
    static let defaultAdminPort = 8081

    @OptionGroup(title: "Listener") var listener: ApiListenerOptions
    @OptionGroup(title: "Tokens and limits") var access: ApiAccessOptions
    @OptionGroup(title: "Intake") var intake: ApiIntakeOptions
    @OptionGroup(title: "Offer signatures (the In-App Purchase key; without it POST /v1/users/{id}/offer-signatures answers 501)")
    var inAppPurchaseKey: InAppPurchaseKeyOptions
    @OptionGroup(title: "Tracing") var tracing: TracingOptions

    /// The configuration from options, then the environment, then the defaults; validated.
    func settings(_ environment: EnvironmentReader) throws -> APIConfiguration {
        var settings = APIConfiguration()
        settings.host = listener.host ?? settings.host
        settings.port = listener.port ?? settings.port
        settings.tokens = try loadTokens(environment)
        settings.trustedClaimTokens = try trustedTokens(environment, among: settings.tokens).indices
        settings.maxReceiptBytes = access.maxReceiptBytes ?? settings.maxReceiptBytes
        settings.rateLimitPerSecond = access.rateLimit ?? settings.rateLimitPerSecond
        settings.rateLimitBurst = access.rateBurst ?? settings.rateLimitBurst
        settings.authFailuresPerMinute = access.authFailureLimit ?? settings.authFailuresPerMinute
        settings.maxLongPollsPerToken = access.maxLongPollsPerToken ?? settings.maxLongPollsPerToken
        settings.maxLongPolls = access.maxLongPolls ?? settings.maxLongPolls
        settings.poolSize = listener.poolSize ?? settings.poolSize
        settings.groupCommit.enabled = !intake.noGroupCommit
        settings.idleTimeout = listener.idleTimeout ?? settings.idleTimeout
        settings.billingRetryAccess = intake.billingRetryAccess
        settings.signedTransactions = try signedData.verifier(environment, ocsp: OnlineRevocation.requester)
        if settings.signedTransactions != nil { settings.notificationQuarantine = try signedData.notificationQuarantine(environment) }
        if try ReceiptCheckMode.resolve(intake.receiptCheck, environment) == .local {
            settings.receiptCheck = try ReceiptCheckMode.verifier(bundleIds: signedData.bundleIdSet(environment),
                                                                  roots: signedData.trustedRoots(environment))
        }
        settings.offerSigning = try offerSigning(environment)
        do {
            try settings.validate()
        } catch {
            throw ConfigurationError("\(error)")
        }
        return settings
    }

    /// The In-App Purchase key and the apps it signs offers for; nil without a key.
    private func offerSigning(_ environment: EnvironmentReader) throws -> OfferSigning? {
        guard let key = try inAppPurchaseKey.key(environment) else { return nil }
        let bundleIds = signedData.bundleIdList(environment)
        guard !bundleIds.isEmpty else {
            throw ConfigurationError("--app-store-key-file signs offers for your apps: pass --bundle-ids (or RECEIPTQ_BUNDLE_IDS) too")
        }
        return OfferSigning(key: key, issuerId: inAppPurchaseKey.issuerId(environment), bundleIds: bundleIds)
    }

    func run() async throws {
        MallocArenas.limit()   // before the requests allocate
        let environment = EnvironmentReader()
        var settings = try settings(environment)
        let logger = LogSetup.bootstrap(label: "receiptq.api")
        let exporter = try tracing.bootstrap(service: "receiptq-api", logger: logger, environment: environment)
        settings.tracing = exporter != nil
        // Each client connection is a descriptor: thousands of them (slow clients included) need more than 1,024.
        FileDescriptorLimit.raise(to: 16_384, logger: logger)
        let files = try migrations.load()
        let config = try database.configuration(applicationName: "receiptq-api-\(getpid())")
        try await checkTrustedTokensRegistered(try trustedTokens(environment, among: settings.tokens).hex, database: config, logger: logger)

        let adminSettings = try admin.configuration(defaultPort: Self.defaultAdminPort)
        guard adminSettings.port != settings.port || adminSettings.port == 0 else {
            throw ConfigurationError("--admin-port must differ from --port: the admin endpoints are never served on the public port")
        }
        let listening = ListenerGate()
        let server = APIServer(configuration: settings, database: config, logger: logger, onListening: { _ in listening.open() })
        let roots = try signedData.trustedRoots(environment)
        roots.log(to: logger)
        roots.export(to: server.registry)
        var services: [any Service] = [server]
        if adminSettings.isEnabled {
            // Readiness on a connection of its own: the receipts' pool is never probed.
            services.append(AdminServer(configuration: adminSettings, registry: server.registry,
                                        readiness: ReadinessProbe(database: config, migrations: files, listener: listening, logger: logger), logger: logger,
                                        facts: roots.readinessFacts))
        }
        // First, so it stops last (a service group stops in reverse order): the last spans go out.
        if let exporter { services.insert(exporter, at: 0) }
        let group = ProcessServiceGroup.make(services: services, logger: logger)
        await warnWhenCommitsAreNotDurable(database: config, logger: logger)
        logger.info("api starting", metadata: ["database": "\(config.redacted)", "host": "\(settings.host)",
                                               "port": "\(settings.port)", "admin": "\(adminSettings.host):\(adminSettings.port)",
                                               "tokens": "\(settings.tokens.count)",
                                               "trusted_claim_tokens": "\(settings.trustedClaimTokens.count)",
                                               "receipt_check": "\(settings.receiptCheck == nil ? "off" : "local")",
                                               "offer_signing": "\(settings.offerSigning.map { "key \($0.key.keyId)" } ?? "off")"])
        try await group.run()
    }

    /// A 202 means "committed": says so at start when this login's commits are not durable
    /// (`CommitDurability`). A database not reachable yet is not an error here (readiness says it).
    private func warnWhenCommitsAreNotDurable(database: PostgresConfiguration, logger: Logger) async {
        let pool = PostgresPool(configuration: database, size: 1)
        defer { pool.shutdown() }
        guard let durability = try? await pool.withConnection({ try CommitDurability.read(on: $0) }) else { return }
        for problem in durability.problems {
            logger.warning("a 202 may not survive a crash", metadata: ["problem": "\(problem)"])
        }
    }

    /// The accepted tokens trusted for transaction-id claims (each must be an accepted token), and
    /// their digests.
    private func trustedTokens(_ environment: EnvironmentReader, among tokens: TokenDigests) throws -> (indices: Set<Int>, hex: [String]) {
        guard let text = access.trustedClaimTokens else { return ([], []) }
        let trusted: TokenDigests
        do { trusted = try TokenDigests(hexList: text) } catch {
            throw ConfigurationError("--trusted-claim-tokens: \(error)")
        }
        guard let indices = tokens.indices(of: trusted) else {
            throw ConfigurationError("--trusted-claim-tokens names a digest that is not an accepted API token (RECEIPTQ_API_TOKENS or --tokens-file)")
        }
        return (indices, trusted.hexDigests)
    }

    /// Refuses to start when the database does not trust a token `--trusted-claim-tokens` names:
    /// its claims would be queued as plain claims, silently. A database not reachable yet is not a
    /// configuration error (readiness reports it); the check is then skipped, and the database
    /// still decides each claim.
    private func checkTrustedTokensRegistered(_ digests: [String], database: PostgresConfiguration, logger: Logger) async throws {
        guard !digests.isEmpty else { return }
        let missing: [String]
        let pool = PostgresPool(configuration: database, size: 1)
        defer { pool.shutdown() }
        do {
            missing = try await pool.withConnection { try TrustedClaimTokens.unregistered(digests, on: $0) }
        } catch {
            logger.warning("could not check --trusted-claim-tokens against the database; the database still decides each claim",
                           metadata: ["error": "\(error)"])
            return
        }
        guard missing.isEmpty else {
            throw ConfigurationError("""
                --trusted-claim-tokens names \(missing.count) token(s) the database does not trust: as the schema's owner, run \
                receiptq trusted-claims add --digest \(missing[0].prefix(12))… (the API's login cannot vouch for a claim by itself)
                """)
        }
    }

    /// Digests only; the command refuses to start with none (every request would be a 401).
    private func loadTokens(_ environment: EnvironmentReader) throws -> TokenDigests {
        let text: String
        let source: String
        if let tokensFile = access.tokensFile {
            do { text = try String(contentsOfFile: tokensFile, encoding: .utf8) } catch {
                throw ConfigurationError("cannot read --tokens-file \(tokensFile)")
            }
            source = "--tokens-file"
        } else {
            text = try environment.secret("RECEIPTQ_API_TOKENS") ?? ""
            source = "RECEIPTQ_API_TOKENS (or RECEIPTQ_API_TOKENS_FILE)"
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
