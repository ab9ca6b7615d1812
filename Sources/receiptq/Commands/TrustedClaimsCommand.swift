import API
import ArgumentParser
import CommandSupport
import Foundation
import Postgres
import ReceiptQueue

/// `receiptq trusted-claims …`: which backend tokens the database believes when they vouch for a
/// bare transaction id (`receiptq api --trusted-claim-tokens` names them on the API's side). Run as
/// the schema's owner: the API's login can read the list, never write it, so its password alone
/// vouches for nobody.
struct TrustedClaimsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trusted-claims",
        abstract: "Manage the API tokens whose transaction-id claims the database believes (run as the schema's owner).",
        subcommands: [Add.self, List.self, Remove.self])

    /// A token digest as the API's options take it: 64 hex digits (SHA-256 of the token).
    /// Parsed as the API parses its token digests (`TokenDigests`), so both spell one the same way.
    static func digest(_ text: String) throws -> String {
        guard let digests = try? TokenDigests(hexList: text).hexDigests, digests.count == 1 else {
            throw ConfigurationError("--digest must be the token's SHA-256 as 64 hex digits (as in RECEIPTQ_API_TOKENS), never the token")
        }
        return digests[0]
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Trust a token's transaction-id claims (the API must name it in --trusted-claim-tokens too).",
            discussion: """
                Example: receiptq trusted-claims add --digest $(printf %s "$TOKEN" | sha256sum | cut -d' ' -f1) --note "billing backend"
                Only for a backend that checks who paid by itself: its claims are granted to the user it names.
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The token's SHA-256, 64 hex digits.") var digest: String
        @Option(help: "Who the token belongs to (at most 200 characters).") var note: String?

        func run() async throws {
            LogSetup.bootstrap(label: "receiptq.trusted-claims", defaultLevel: .error)
            let digest = try TrustedClaimsCommand.digest(self.digest)
            if let note, note.count > 200 { throw ConfigurationError("--note is longer than 200 characters") }
            let pool = PostgresPool(configuration: try database.configuration(applicationName: "receiptq-trusted-claims"), size: 1)
            defer { pool.shutdown() }
            let note = self.note
            try await pool.withConnection { try TrustedClaimTokens.add(digest: digest, note: note, on: $0) }
            print("trusted for claims: \(digest.prefix(12))…")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the token digests trusted for claims.")
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            LogSetup.bootstrap(label: "receiptq.trusted-claims", defaultLevel: .error)
            let pool = PostgresPool(configuration: try database.configuration(applicationName: "receiptq-trusted-claims"), size: 1)
            defer { pool.shutdown() }
            let entries = try await pool.withConnection { try TrustedClaimTokens.list(on: $0) }
            for entry in entries { print([entry.digest, entry.addedBy, entry.note ?? ""].joined(separator: "  ")) }
            if entries.isEmpty { print("(none: a bare transaction id is granted only to the owner Apple's signed appAccountToken names)") }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop trusting a token's claims (from its next claim on).")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The token's SHA-256, 64 hex digits.") var digest: String

        func run() async throws {
            LogSetup.bootstrap(label: "receiptq.trusted-claims", defaultLevel: .error)
            let digest = try TrustedClaimsCommand.digest(self.digest)
            let pool = PostgresPool(configuration: try database.configuration(applicationName: "receiptq-trusted-claims"), size: 1)
            defer { pool.shutdown() }
            let removed = try await pool.withConnection { try TrustedClaimTokens.remove(digest: digest, on: $0) }
            print(removed ? "no longer trusted: \(digest.prefix(12))…" : "not trusted: \(digest.prefix(12))…")
        }
    }
}
