import ArgumentParser
import CommandSupport
import Foundation
import Postgres
import ReceiptQueue
import WebhookSignature

/// `receiptq webhooks …`: the endpoints events are pushed to, and failed deliveries. Secrets are
/// read from a file or the environment, never from the command line (other users see it in ps).
struct WebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks",
        abstract: "Manage webhook endpoints (events pushed to your backend), send them a test event, re-drive failed deliveries.",
        subcommands: [Add.self, Remove.self, List.self, Redrive.self, Test.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an endpoint, or change one (rotate secrets by giving the new one and the old one).",
            discussion: "Events appended from now on are delivered to it, signed with every secret given.")

        @OptionGroup var database: DatabaseOptions
        @Option(help: "Endpoint id: letters, digits, . _ -.") var id: String
        @Option(help: "https URL that receives POSTs (plain http only to 127.0.0.1/localhost).") var url: String
        @Option(help: "File with one or two secrets, one per line (the second while rotating): Standard Webhooks secrets, whsec_ + base64 of 24 to 64 random bytes.")
        var secretFile: String?
        @Option(help: "Comma-separated event types or prefixes (verdict.*). Default: all.") var events: String?
        @Flag(help: "Add it disabled (events still queue for it). Default: off.") var disabled = false

        func run() async throws {
            LogSetup.bootstrap(label: "receiptq.webhooks", defaultLevel: .error)
            let environment = EnvironmentReader()
            let secrets: [String]
            if let secretFile {
                guard let text = try? String(contentsOfFile: secretFile, encoding: .utf8) else {
                    throw ConfigurationError("--secret-file: cannot read \(secretFile)")
                }
                secrets = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            } else {
                secrets = try environment.secret("RECEIPTQ_WEBHOOK_SECRETS").map(EnvironmentReader.split) ?? []
            }
            let endpoint = WebhookEndpoint(id: id, url: url, secrets: secrets, eventTypes: events.map(EnvironmentReader.split), enabled: !disabled)
            do { try endpoint.validate() } catch { throw ConfigurationError("\(error)") }
            for (index, secret) in secrets.enumerated() where !WebhookSecret(secret).isRecommended {
                FileHandle.standardError.write(Data("""
                    warning: secret \(index + 1) is not a Standard Webhooks secret (whsec_ + base64 of at least 24 random bytes): \
                    deliveries are signed with its raw UTF-8 bytes, which a Standard Webhooks library takes only as a raw key. \
                    Make one with: printf 'whsec_%s\\n' "$(head -c 32 /dev/urandom | base64)"

                    """.utf8))
            }
            let pool = PostgresPool(configuration: try database.configuration(applicationName: "receiptq-webhooks"), size: 1)
            defer { pool.shutdown() }
            try await pool.withConnection { try UpsertWebhookEndpoint.run(endpoint, on: $0) }
            print("endpoint \(endpoint)")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an endpoint and its pending deliveries.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Endpoint id.") var id: String

        func run() async throws {
            LogSetup.bootstrap(label: "receiptq.webhooks", defaultLevel: .error)
            let pool = PostgresPool(configuration: try database.configuration(applicationName: "receiptq-webhooks"), size: 1)
            defer { pool.shutdown() }
            let id = self.id
            let removed = try await pool.withConnection { try RemoveWebhookEndpoint.run(id: id, on: $0) }
            print(removed ? "removed \(id)" : "no endpoint \(id)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List endpoints with their delivery health (secrets are not shown).")
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            LogSetup.bootstrap(label: "receiptq.webhooks", defaultLevel: .error)
            let pool = PostgresPool(configuration: try database.configuration(applicationName: "receiptq-webhooks"), size: 1)
            defer { pool.shutdown() }
            print(TextTable.render(try await pool.query("SELECT * FROM receiptq.webhook_health ORDER BY endpoint_id")))
        }
    }

    struct Redrive: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Put failed deliveries back in the queue (the receiver is fixed).")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Only this endpoint's. Default: every endpoint's.") var endpoint: String?

        func run() async throws {
            LogSetup.bootstrap(label: "receiptq.webhooks", defaultLevel: .error)
            let pool = PostgresPool(configuration: try database.configuration(applicationName: "receiptq-webhooks"), size: 1)
            defer { pool.shutdown() }
            let endpoint = self.endpoint
            let moved = try await pool.withConnection { try RedriveFailedDeliveries.run(endpoint: endpoint, on: $0) }
            try await pool.query("SELECT pg_notify('receiptq_events', '')")
            print("re-drove \(moved) failed deliveries")
        }
    }
}
