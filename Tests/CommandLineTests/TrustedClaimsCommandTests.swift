import Foundation
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// `receiptq trusted-claims`: the owner tells the database which backend tokens may vouch for a
/// bare transaction id; `receiptq api` refuses to start trusting one the database does not.
@Suite("receiptq trusted-claims: which tokens the database believes, and an API that agrees")
struct TrustedClaimsCommandTests {
    static let digest = String(repeating: "ab", count: 32)
    static let other = String(repeating: "cd", count: 32)

    @Test func theOwnerAddsListsAndRemovesATokenDigestAndAMalformedOneIsRefusedNamingTheFlag() async throws {
        let database = try await ScratchDatabase.migrated()
        let url = database.connectionString
        let add = try await ChildProcess.run(arguments: ["trusted-claims", "add", "--database-url", url, "--digest", Self.digest.uppercased(),
                                                         "--note", "billing backend"])
        #expect(add.status == 0, "\(add.stderr)")
        let list = try await ChildProcess.run(arguments: ["trusted-claims", "list", "--database-url", url])
        #expect(list.status == 0 && list.stdout.contains(Self.digest) && list.stdout.contains("billing backend"), "\(list.stdout)")
        for bad in ["abc", "a token, not its digest", String(repeating: "zz", count: 32)] {
            let refused = try await ChildProcess.run(arguments: ["trusted-claims", "add", "--database-url", url, "--digest", bad])
            #expect(refused.status == 78 && refused.stderr.contains("--digest"), "\(refused.status) \(refused.stderr)")
        }
        let remove = try await ChildProcess.run(arguments: ["trusted-claims", "remove", "--database-url", url, "--digest", Self.digest])
        #expect(remove.status == 0 && remove.stdout.contains("no longer trusted"), "\(remove.stdout)")
        let empty = try await ChildProcess.run(arguments: ["trusted-claims", "list", "--database-url", url])
        #expect(!empty.stdout.contains(Self.digest))
        // The API's login reads the list, never writes it.
        let asAPI = try await ChildProcess.run(arguments: ["trusted-claims", "add", "--database-url", try await database.connectionString(as: .api),
                                                           "--digest", Self.digest])
        #expect(asAPI.status != 0 && asAPI.stderr.contains("permission denied"), "\(asAPI.stderr)")
    }

    @Test func theAPIRefusesToStartTrustingATokenTheDatabaseDoesNotTrust() async throws {
        let database = try await ScratchDatabase.migrated()
        let owner = database.pool(size: 1)
        defer { owner.shutdown() }
        try await owner.withConnection { try TrustedClaimTokens.add(digest: Self.digest, note: nil, on: $0) }
        let environment = ["RECEIPTQ_API_TOKENS": "\(Self.digest),\(Self.other)"]
        func api(trusting digest: String, for timeout: Duration) async throws -> (status: Int32?, stdout: String, stderr: String) {
            try await ChildProcess.run(arguments: ["api", "--receipt-check", "off", "--port", "0", "--admin-port", "0",
                                                   "--trusted-claim-tokens", digest, "--database-url", try await database.connectionString(as: .api)],
                                       environment: environment, timeout: timeout)
        }
        let refused = try await api(trusting: Self.other, for: .seconds(60))       // exits by itself, however loaded the machine
        #expect(refused.status == 78, "\(refused.stderr)")
        #expect(refused.stderr.contains("receiptq trusted-claims add --digest \(Self.other.prefix(12))"), "\(refused.stderr)")
        let started = try await api(trusting: Self.digest, for: .seconds(4))       // runs until the test stops it
        #expect(started.status != 78 && !started.stderr.contains("does not trust"), "\(started.stderr)")
    }
}
