import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Postgres
import PostgresTesting
import ReceiptQueueTesting
import Testing

@Suite("Operations: per-process logins, JSON logs, the scheduler's admin port")
struct OperationsCommandTests {
    static func get(_ url: String) async -> Int? {
        guard let url = URL(string: url), let (_, response) = try? await URLSession.shared.data(from: url) else { return nil }
        return (response as? HTTPURLResponse)?.statusCode
    }

    static func body(_ url: String) async -> String? {
        guard let url = URL(string: url), let (data, _) = try? await URLSession.shared.data(from: url) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    @Test func createLoginMakesALoginOfTheRoleWithThePasswordFromAFileAndNeverPrintsIt() async throws {
        let database = try await ScratchDatabase.migrated()
        let login = "rq_test_cli_\(UInt32.random(in: 0...UInt32.max))"
        let password = "pw-\(UUID().uuidString)"
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pw-\(UUID().uuidString)")
        try (password + "\n").write(to: file, atomically: true, encoding: .utf8)
        defer {
            try? FileManager.default.removeItem(at: file)
            Task {
                let pool = database.pool(size: 1)
                _ = try? await pool.query("DROP ROLE IF EXISTS \(login)")   // generated: letters and digits
                pool.shutdown()
            }
        }
        let made = try await ChildProcess.run(arguments: ["roles", "create-login", "--database-url", database.connectionString,
                                                          "--role", "readonly", "--login", login, "--password-file", file.path])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.contains("created login \(login) in receiptq_readonly"))
        #expect(!(made.stdout + made.stderr).contains(password))
        var components = try #require(URLComponents(string: database.configuration.connectionString(database: database.name, user: login)))
        components.password = password
        let stats = try await ChildProcess.run(arguments: ["stats", "--database-url", try #require(components.string)])
        #expect(stats.status == 0, "stats as the readonly login: \(stats.stderr)")
        let refused = try await ChildProcess.run(arguments: ["roles", "create-login", "--database-url", database.connectionString,
                                                             "--role", "worker", "--login", "Robert'); DROP TABLE x;--"])
        #expect(refused.status == 64, "\(refused.stderr)")
    }

    @Test func jsonLogsAreOneObjectPerLineAndTheSchedulerAnswersProbesOnItsAdminPort() async throws {
        let database = try await ScratchDatabase.migrated()
        let owner = database.pool(size: 1)
        defer { owner.shutdown() }
        try await owner.query("INSERT INTO receiptq.jobs (receipt_data, transaction_id, user_id) VALUES ('a', 't1', 'u'), ('b', 't2', 'u')")
        let port = try FreePort.pick()
        let scheduler = try ChildProcess(arguments: ["scheduler", "--interval", "200ms", "--admin-port", "\(port)",
                                                     "--database-url", try await database.connectionString(as: .scheduler)],
                                         environment: ["RECEIPTQ_LOG_FORMAT": "json", "RECEIPTQ_LOG_LEVEL": "debug"])
        defer { scheduler.kill() }
        #expect(await eventually(timeout: .seconds(20)) { await Self.get("http://127.0.0.1:\(port)/readyz") == 200 },
                "scheduler said: \(scheduler.stderr)")
        #expect(await Self.get("http://127.0.0.1:\(port)/healthz") == 200)
        // Ready before its first pass has read the queue: the gauge shows within a few passes.
        var metrics = ""
        #expect(await eventually(timeout: .seconds(10)) {
            metrics = await Self.body("http://127.0.0.1:\(port)/metrics") ?? ""
            return metrics.contains("receiptq_scheduler_queue_jobs{state=\"queued\"} 2")
        }, "\(metrics)")
        #expect(metrics.contains("# HELP receiptq_scheduler_queue_oldest_ready_age_seconds "))
        #expect(await eventually(timeout: .seconds(10)) { scheduler.stderr.contains("scheduler leads") })
        scheduler.kill(SIGTERM)
        #expect(await scheduler.wait(timeout: .seconds(10)) == 0)
        let lines = scheduler.stderr.split(separator: "\n")
        #expect(lines.count >= 2)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["message"] is String && object?["level"] is String, "not a JSON log line: \(line)")
        }
    }

    @Test func aLogFormatOtherThanTextOrJSONIsAConfigurationError() async throws {
        let result = try await ChildProcess.run(arguments: ["stats", "--database-url", "postgresql://u:p@127.0.0.1:1/db"],
                                                environment: ["RECEIPTQ_LOG_FORMAT": "xml"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("RECEIPTQ_LOG_FORMAT"))
    }

    @Test func aLogLevelSwiftLogDoesNotKnowIsAConfigurationError() async throws {
        let result = try await ChildProcess.run(arguments: ["stats", "--database-url", "postgresql://u:p@127.0.0.1:1/db"],
                                                environment: ["RECEIPTQ_LOG_LEVEL": "verbose"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("RECEIPTQ_LOG_LEVEL must be one of trace, debug, info, notice, warning, error, critical"), "\(result.stderr)")
    }
}
