import PostgresTesting
import Foundation
import ReceiptQueueTesting
import Testing

@Suite("Command line: bad database settings fail with one clear line")
struct CommandLineErrorTests {
    /// Runs `receiptq migrate` against `url` and returns (status, stderr).
    func migrate(_ url: String?) async throws -> (Int32?, String) {
        var arguments = ["migrate", "--migrations", ScratchDatabase.migrationsDirectory().path]
        if let url { arguments += ["--database-url", url] }
        let result = try await ChildProcess.run(arguments: arguments, timeout: .seconds(20))
        return (result.status, result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func unreachableDatabaseIsAOneLineErrorAndNonZeroExit() async throws {
        let (status, stderr) = try await migrate("postgresql://receiptq:x@127.0.0.1:1/receiptq")
        #expect(status != nil && status != 0)            // no hang, no crash signal
        #expect(stderr.contains("Connection refused"))
        #expect(!stderr.contains("\n"))
    }

    @Test func wrongPasswordNamesAuthenticationAndHidesThePassword() async throws {
        let server = try ScratchDatabase.server()
        var components = try #require(URLComponents(string: server.connectionString))
        components.password = "definitely-wrong-password"
        let (status, stderr) = try await migrate(components.string)
        #expect(status != nil && status != 0)
        #expect(stderr.contains("password authentication failed"))
        #expect(!stderr.contains("definitely-wrong-password"))
        #expect(!stderr.contains("\n"))
    }

    @Test func malformedDatabaseURLNamesTheSetting() async throws {
        let (status, stderr) = try await migrate("postgresql://u:p@h/db?bogus_option=1")
        #expect(status != nil && status != 0)
        #expect(stderr.contains("DATABASE_URL"))
        #expect(stderr.contains("malformed"))
        #expect(!stderr.contains("\n"))
    }

    @Test func missingDatabaseURLSaysHowToGiveIt() async throws {
        let (status, stderr) = try await migrate(nil)
        #expect(status != nil && status != 0)
        #expect(stderr.contains("DATABASE_URL"))
    }
}
