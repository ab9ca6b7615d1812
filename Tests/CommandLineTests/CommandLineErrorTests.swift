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

    @Test(arguments: ["postgresql://app:s3cr%t pass@127.0.0.1:5432/db", "postgresql://app:s3cr%t@127.0.0.1:5x32/db",
                      "host=127.0.0.1 password='s3cr%t pass' port=oops"])
    func aPasswordWithPercentAndSpacesNeverAppearsInTheOutput(url: String) async throws {
        let (status, stderr) = try await migrate(url)
        #expect(status == 78)                                          // EX_CONFIG: systemd does not restart it
        #expect(!stderr.contains("s3cr"), "\(stderr)")
        #expect(stderr.contains("DATABASE_URL"))
    }

    @Test func aSettingThatCannotWorkExits78AndBadUsageExits64() async throws {
        let config = try await ChildProcess.run(arguments: ["worker", "--bundle-ids", "x", "--lease", "1s",
                                                            "--database-url", "postgresql://u:p@127.0.0.1:1/db"], timeout: .seconds(20))
        #expect(config.status == 78)
        #expect(config.stderr.contains("--lease"))
        let usage = try await ChildProcess.run(arguments: ["worker", "--lease", "1e300h"], timeout: .seconds(20))
        #expect(usage.status == 64)
        #expect(usage.stderr.contains("--lease"))
        let version = try await ChildProcess.run(arguments: ["--version"], timeout: .seconds(20))
        #expect(version.status == 0 && version.stdout.contains("."))
    }

    @Test(arguments: [["--reconcile-budget-share", "0"], ["--reconcile-budget-share", "1.5"], ["--reconcile-concurrency=-1"],
                      ["--history-sync-concurrency", "5000"]])
    func aSubscriptionWorkSettingThatCannotWorkExits78NamingTheFlag(arguments: [String]) async throws {
        let worker = try await ChildProcess.run(arguments: ["worker", "--bundle-ids", "x", "--database-url", "postgresql://u:p@127.0.0.1:1/db"]
                                                + arguments, timeout: .seconds(20))
        #expect(worker.status == 78, "\(worker.stderr)")
        let flag = arguments[0].split(separator: "=")[0]
        #expect(worker.stderr.contains(flag), "\(worker.stderr)")
    }

    /// Apple's library requires the app's Apple id for production; so do the processes that
    /// accept production data signed under Apple's root.
    @Test func productionSignedDataWithoutTheAppsAppleIdIsRefusedAtStartNamingTheFlag() async throws {
        let unreachable = "postgresql://u:p@127.0.0.1:1/db"
        let worker = try await ChildProcess.run(arguments: ["worker", "--bundle-ids", "x", "--receipt-check", "off", "--database-url", unreachable],
                                                timeout: .seconds(20))
        #expect(worker.status == 78)
        #expect(worker.stderr.contains("--app-apple-id"), "\(worker.stderr)")
        let api = try await ChildProcess.run(arguments: ["api", "--bundle-ids", "x", "--receipt-check", "off", "--database-url", unreachable],
                                             environment: ["RECEIPTQ_API_TOKENS": String(repeating: "ab", count: 32)], timeout: .seconds(20))
        #expect(api.status == 78)
        #expect(api.stderr.contains("--app-apple-id"), "\(api.stderr)")
    }

    @Test func theDatabaseURLCanComeFromAFileAsContainersHandSecretsOver() async throws {
        // A database of its own, migrated: `stats` reads the ops views (the server's default
        // database is migrated only when `./Deploy/dev` has run).
        let database = try await ScratchDatabase.migrated(purpose: "dburlfile")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("db-url-\(UUID().uuidString)")
        try (database.connectionString + "\n").write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await ChildProcess.run(arguments: ["stats"], environment: ["DATABASE_URL": "", "DATABASE_URL_FILE": file.path],
                                                timeout: .seconds(20))
        #expect(result.status == 0, "\(result.stderr)")
        await database.drop()
    }

    @Test func missingDatabaseURLSaysHowToGiveIt() async throws {
        let (status, stderr) = try await migrate(nil)
        #expect(status != nil && status != 0)
        #expect(stderr.contains("DATABASE_URL"))
    }
}
