import CommandSupport
import Logging
import Postgres
import Testing

/// `/readyz` is not ready before the public listener accepts connections: on a busy machine the
/// admin listener answered 200 while the API's port still refused them.
@Suite("Readiness waits for the public listener")
struct ListenerGateTests {
    @Test func notReadyUntilTheListenerIsBoundThenTheDatabaseDecides() async throws {
        let unreachable = try PostgresConfiguration(connectionString: "postgresql://u:p@127.0.0.1:1/db")
        let gate = ListenerGate()
        let probe = ReadinessProbe(database: unreachable, listener: gate, logger: Logger(label: "test"))
        let before = await probe.check()
        #expect(!before.isReady)
        #expect(before.reason == "the public listener is not accepting connections yet")

        gate.open()
        let after = await probe.check()
        #expect(!after.isReady)                                       // now the database's answer
        #expect(after.reason?.contains("database") == true, "\(after.reason ?? "")")
        await probe.shutdown()
    }

    @Test func aProcessWithoutAPublicListenerIsJudgedByItsDatabaseAlone() async throws {
        let unreachable = try PostgresConfiguration(connectionString: "postgresql://u:p@127.0.0.1:1/db")
        let probe = ReadinessProbe(database: unreachable, logger: Logger(label: "test"))
        #expect(await probe.check().reason?.contains("database") == true)
        await probe.shutdown()
    }
}
