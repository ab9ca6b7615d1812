import Foundation
import Logging
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// Migration 0011's roles, checked by PostgreSQL itself: each process's statements run with only
/// its role's privileges, and what a role was never meant to do is refused ("permission denied",
/// SQLSTATE 42501).
@Suite("Roles: each process does its work with its own role, and nothing more")
struct RoleTests {
    /// A migrated database, an owner pool for set-up and checks, and one pool per role.
    struct Fixture {
        let database: ScratchDatabase
        let owner: PostgresPool

        static func make() async throws -> Fixture {
            let database = try await ScratchDatabase.migrated()
            return Fixture(database: database, owner: database.pool(size: 1))
        }

        func pool(_ role: ProcessRole) async throws -> PostgresPool {
            PostgresPool(configuration: try await database.configuration(as: role), size: 1)
        }

        func shutdown() { owner.shutdown() }
    }

    /// Runs `sql` on `pool` and returns the SQLSTATE it was refused with (nil: it ran).
    static func refusal(_ pool: PostgresPool, _ sql: String) async -> String? {
        do {
            try await pool.query(sql)
            return nil
        } catch let error as PostgresError {
            return error.sqlState ?? "no sqlstate"
        } catch {
            return "\(error)"
        }
    }

    static let denied = "42501"

    @Test func theAPIRoleCannotWriteTheLedgerReadReceiptsOrChangeTheSchema() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.shutdown() }
        let api = try await fixture.pool(.api)
        defer { api.shutdown() }
        _ = try await JobQueue(pool: api).enqueue([NewJob(receiptData: "cmVjZWlwdA==", transactionID: "t1", userID: "u1")])
        for sql in [
            """
            INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment, purchase_key)
            VALUES ('t1', 't1', 1, 'u1', 'coins', 'Production', 'purchase:t1')
            """,
            "SELECT receipt_data FROM receiptq.jobs",
            "UPDATE receiptq.jobs SET state = 'granted', finished_at = now()",
            "DELETE FROM receiptq.jobs",
            "CREATE TABLE receiptq.stolen (x text)",
            "DROP TABLE receiptq.grants",
            "ALTER TABLE receiptq.jobs ADD COLUMN x int",
            "SELECT secrets FROM receiptq.webhook_endpoints",
            "SELECT receiptq.create_login('intruder', NULL, 'receiptq_worker')",
        ] {
            #expect(await Self.refusal(api, sql) == Self.denied, "the API role ran: \(sql)")
        }
        #expect(try await fixture.owner.query("SELECT count(*) FROM receiptq.grants")[0].decode("count", as: Int.self) == 0)
    }

    @Test func readonlyReadsEveryOpsViewButNeverAReceiptOrAWebhookSecret() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.shutdown() }
        try await fixture.owner.withConnection { connection in
            _ = try EnqueueBatch.run([NewJob(receiptData: "c2VjcmV0", transactionID: "t1", userID: "u1")], on: connection)
            try UpsertWebhookEndpoint.run(WebhookEndpoint(id: "backend", url: "https://backend.example/hook",
                                                          secrets: ["whsec_0123456789abcdef"]), on: connection)
        }
        let readonly = try await fixture.pool(.readonly)
        defer { readonly.shutdown() }
        for view in ["queue_depth", "claimable_work", "queue_health", "outcomes", "failures", "flagged_grants", "webhook_health", "api_rate_budget_status"] {
            #expect(await Self.refusal(readonly, "SELECT * FROM receiptq.\(view)") == nil, "readonly cannot read \(view)")
        }
        #expect(try await readonly.query("SELECT notify_queue_usage FROM receiptq.queue_health")[0].decode("notify_queue_usage", as: Double.self) >= 0)
        #expect(try await readonly.query("SELECT transaction_id, state FROM receiptq.jobs").count == 1)
        #expect(try await readonly.query("SELECT id, url FROM receiptq.webhook_endpoints").count == 1)
        for sql in ["SELECT receipt_data FROM receiptq.jobs", "SELECT * FROM receiptq.jobs", "SELECT secrets FROM receiptq.webhook_endpoints",
                    "INSERT INTO receiptq.products (product_id, type) VALUES ('p', 'consumable')", "DELETE FROM receiptq.events"] {
            #expect(await Self.refusal(readonly, sql) == Self.denied, "readonly ran: \(sql)")
        }
    }

    @Test func theAPIRoleEnqueuesSupersedesRegistersOrdersAndReadsResults() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.shutdown() }
        // A job that ended resubmit: the next receipt for its transaction supersedes it.
        let old = try await JobQueue(pool: fixture.owner).enqueue([NewJob(receiptData: "b2xk", transactionID: "t1", userID: "u1")])[0].id
        try await fixture.owner.query("UPDATE receiptq.jobs SET state = 'resubmit', finished_at = now() WHERE id = $1", [old])
        let api = try await fixture.pool(.api)
        defer { api.shutdown() }
        let queue = JobQueue(pool: api)
        let jobs = try await queue.enqueue([NewJob(receiptData: "bmV3", transactionID: "t1", userID: "u1"),
                                            NewJob(receiptData: "bmV3", transactionID: "t1", userID: "u1")])
        #expect(jobs.map(\.created) == [true, false])
        #expect(try await queue.enqueue([NewJob(receiptData: "bmV3", transactionID: "t1", userID: "u1")])[0].created == false)
        #expect(try await queue.job(id: old)?.supersededBy == jobs[0].id)
        let order = try await api.withConnection { try RegisterOrder.run(orderID: "o1", userID: "u1", productID: "coins", on: $0) }
        #expect({ if case .created = order { true } else { false } }())
        _ = try await api.withConnection { try ListGrants.run(userID: "u1", limit: 10, on: $0) }
        _ = try await api.withConnection { try ListEvents.run(after: 0, limit: 10, on: $0) }
        let migrations = try Migration.load(from: ScratchDatabase.migrationsDirectory())
        #expect(try await api.withConnection { try Migrator.pending(migrations, on: $0) }.isEmpty)
    }

    @Test func theWorkerRoleClaimsGrantsAppendsEventsDeliversAndSharesTheRateBudget() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.shutdown() }
        try await fixture.owner.withConnection { connection in
            _ = try EnqueueBatch.run([NewJob(receiptData: "Z3JhbnQ=", transactionID: "t1", userID: "u1", productID: "coins", orderID: "o1"),
                                      NewJob(receiptData: "Zm9yZ2Vk", transactionID: "t2", userID: "u1")], on: connection)
            _ = try RegisterOrder.run(orderID: "o1", userID: "u1", productID: "coins", on: connection)
            try UpsertWebhookEndpoint.run(WebhookEndpoint(id: "backend", url: "https://backend.example/hook",
                                                          secrets: ["whsec_0123456789abcdef"]), on: connection)
        }
        let worker = try await fixture.pool(.worker)
        defer { worker.shutdown() }
        let queue = JobQueue(pool: worker)
        let leases = try await queue.claim(limit: 10, worker: "w", lease: .seconds(30)).sorted { $0.id < $1.id }
        #expect(leases.count == 2 && leases[0].receiptData == "Z3JhbnQ=")
        let result = try await queue.record([.granting(leases[0]), .ending(leases[1], .rejected(reason: "Apple: not authentic"))], worker: "w")
        #expect(result.outcomes == [leases[0].id: .granted, leases[1].id: .rejected(reason: "Apple: not authentic")])
        #expect(try await fixture.owner.query("SELECT state FROM receiptq.orders WHERE order_id = 'o1'")[0]["state"] == "fulfilled")
        let endpoints = try await worker.withConnection { try ListWebhookEndpoints.run(on: $0) }
        #expect(endpoints.first?.secrets == ["whsec_0123456789abcdef"])
        let deliveries = try await worker.withConnection {
            try ClaimDeliveries.run(endpoint: "backend", limit: 10, worker: "w", lease: .seconds(30), on: $0)
        }
        #expect(deliveries.count == 1)   // one user: the second event waits for the first
        #expect(try await worker.withConnection { try RecordDeliveries.run(deliveries.map { ($0, .delivered(status: 200)) }, worker: "w", on: $0) } == 1)
        let key = RateBudgetKey(bundleId: "com.example.app", endpoint: "get_transaction_info", environment: "Production")
        try await worker.withConnection { try ConfigureRateBudget.run(key, ratePerSecond: 50, capacity: 10, on: $0) }
        _ = try await worker.withConnection { try TakeRateTokens.run(key, want: 1, on: $0) }
        _ = try await worker.withConnection { try PauseRateBudget.run(key, until: Date().addingTimeInterval(1), on: $0) }
        try await queue.announce(OutageNotice(environment: "Production", worker: "w"))
        for sql in ["DELETE FROM receiptq.jobs", "INSERT INTO receiptq.jobs (receipt_data, transaction_id, user_id) VALUES ('x', 'y', 'z')",
                    "UPDATE receiptq.grants SET user_id = 'thief'", "CREATE TABLE receiptq.stolen (x text)"] {
            #expect(await Self.refusal(worker, sql) == Self.denied, "the worker role ran: \(sql)")
        }
    }

    @Test func theSchedulerRoleRescuesRequeuesGivesUpAndPrunesWithoutReadingReceipts() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.shutdown() }
        let owner = JobQueue(pool: fixture.owner)
        let ids = try await owner.enqueue((0..<4).map { NewJob(receiptData: "cjA=\($0)", transactionID: "t\($0)", userID: "u\($0)") }).map(\.id)
        try await fixture.owner.withConnection { try UpsertWebhookEndpoint.run(WebhookEndpoint(
            id: "backend", url: "https://backend.example/hook", secrets: ["whsec_0123456789abcdef"]), on: $0) }
        let leases = try await owner.claim(limit: 4, worker: "dead", lease: .seconds(30)).sorted { $0.id < $1.id }
        _ = try await owner.record([.granting(leases[0]), .ending(leases[1], .timedOut(delayMilliseconds: 0, error: "timeout"))], worker: "dead")
        // Everything is old: a finished job past retention, a due timed-out job, two expired leases
        // (one past its deadline: given up), a delivery whose deliverer died.
        try await fixture.owner.withConnection { connection in
            try connection.query("UPDATE receiptq.jobs SET finished_at = now() - interval '60 days' WHERE id = $1", [ids[0]])
            try connection.query("UPDATE receiptq.jobs SET locked_until = now() - interval '1 second' WHERE state = 'verifying'")
            try connection.query("UPDATE receiptq.jobs SET created_at = now() - interval '80 hours' WHERE id = $1", [ids[3]])
            try connection.query("""
                UPDATE receiptq.deliveries SET state = 'delivering', locked_by = 'dead', locked_until = now() - interval '1 second'
                """)
        }
        let scheduler = Scheduler(database: try await fixture.database.configuration(as: .scheduler), logger: Logger(label: "test"))
        let tick = try await scheduler.tick()
        #expect(tick.isLeader)
        #expect(tick.requeuedExpiredLeases == 1 && tick.requeuedTimedOut == 1 && tick.failed == 1)
        #expect(tick.pruned == 1 && tick.requeuedDeliveries == 1)
        let pool = try await fixture.pool(.scheduler)
        defer { pool.shutdown() }
        let health = try await pool.withConnection { try ReadQueueHealth.run(on: $0) }   // exported as metrics
        #expect(health.queued == 2 && health.failed == 1 && health.deliveriesPending >= 1)
        for sql in ["SELECT receipt_data FROM receiptq.jobs", "SELECT secrets FROM receiptq.webhook_endpoints",
                    "INSERT INTO receiptq.grants (transaction_id) VALUES ('t')", "CREATE TABLE receiptq.stolen (x text)"] {
            #expect(await Self.refusal(pool, sql) == Self.denied, "the scheduler role ran: \(sql)")
        }
    }

    /// DESIGN: Ownership — no role but the worker's narrow write path can end a job granted or
    /// append an event, and what any role writes to `state` cannot make anyone read `delivered`.
    @Test func noRoleButTheWorkersWritePathCanForgeAVerdictOrAnEvent() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.shutdown() }
        let owner = JobQueue(pool: fixture.owner)
        // alice's grant, alice's second job (already granted), mallory's replay, and a job that failed.
        let ids = try await owner.enqueue([
            NewJob(receiptData: "YQ==", transactionID: "t1", userID: "alice"),
            NewJob(receiptData: "Yg==", transactionID: "t1", userID: "alice"),
            NewJob(receiptData: "YQ==", transactionID: "t1", userID: "mallory"),
            NewJob(receiptData: "Yw==", transactionID: "t2", userID: "mallory"),
        ]).map(\.id)
        let leases = try await owner.claim(limit: 4, worker: "w", lease: .seconds(30)).sorted { $0.id < $1.id }
        _ = try await owner.record([.granting(leases[0])], worker: "w")
        _ = try await owner.record([.granting(leases[1]), .granting(leases[2]), .ending(leases[3], .failed(reason: "gave up"))], worker: "w")
        func verdicts() async throws -> [Verdict] {
            var found: [Verdict] = []
            for id in ids { found.append(try #require(try await owner.job(id: id)).verdict) }
            return found
        }
        #expect(try await verdicts() == [.delivered, .alreadyDelivered, .ownedByAnotherUser, .pending])

        let scheduler = try await fixture.pool(.scheduler)
        defer { scheduler.shutdown() }
        // The scheduler may write `state` to requeue and give up, never a verdict (jobs_guard_state),
        // and a verdict once written never changes — neither into another verdict nor back into the queue.
        // Each forgery is a row the table's checks accept, so what refuses it is the guard (an AFTER
        // trigger, run after the checks) — or, for the purchase key a granted job needs, the
        // scheduler's want of any privilege on that column.
        let key = try #require(try await fixture.owner.query("SELECT purchase_key FROM receiptq.jobs WHERE id = $1", [ids[0]])[0]
            .decodeIfPresent("purchase_key", as: String.self))
        for (assignment, job) in [("state = 'granted'", ids[1]), ("state = 'granted'", ids[2]), ("state = 'rejected'", ids[0]),
                                  ("state = 'owned_elsewhere'", ids[0]), ("state = 'queued', finished_at = NULL", ids[2]),
                                  ("state = 'failed'", ids[0]), ("state = 'rejected'", ids[3]),
                                  ("state = 'granted', purchase_key = '\(key)'", ids[3])] {
            #expect(await Self.refusal(scheduler, "UPDATE receiptq.jobs SET \(assignment) WHERE id = \(job)") == Self.denied,
                    "the scheduler role wrote \(assignment) on job \(job)")
        }
        #expect(try await verdicts() == [.delivered, .alreadyDelivered, .ownedByAnotherUser, .pending])
        // No event but through append_failed_job_events, and that only for jobs this transaction gave up.
        let eventsBefore = try await fixture.owner.query("SELECT count(*) FROM receiptq.events")[0].decode("count", as: Int.self)
        for sql in [
            "INSERT INTO receiptq.events (type, user_id, body) VALUES ('verdict.delivered', 'mallory', '{}')",
            "INSERT INTO receiptq.deliveries (endpoint_id, event_sequence, user_id) VALUES ('e', 1, 'mallory')",
            "SELECT receiptq.append_job_events(ARRAY[\(ids[0])]::bigint[])",
        ] {
            #expect(await Self.refusal(scheduler, sql) == Self.denied, "the scheduler role ran: \(sql)")
        }
        _ = try await scheduler.query("SELECT receiptq.append_failed_job_events($1::bigint[])", [ids])
        let eventsAfter = try await fixture.owner.query("SELECT count(*) FROM receiptq.events")[0].decode("count", as: Int.self)
        #expect(eventsAfter == eventsBefore, "no event for jobs another transaction ended")

        let worker = try await fixture.pool(.worker)
        defer { worker.shutdown() }
        #expect(await Self.refusal(worker, "INSERT INTO receiptq.deliveries (endpoint_id, event_sequence, user_id) VALUES ('e', 1, 'u')")
                == Self.denied, "deliveries come from the fan-out trigger only")
        // The workers end jobs; even they never rewrite a verdict. The owner may, by hand.
        #expect(await Self.refusal(worker, "UPDATE receiptq.jobs SET state = 'rejected' WHERE id = \(ids[0])") == Self.denied)
        #expect(await Self.refusal(worker, "UPDATE receiptq.jobs SET state = 'queued', finished_at = NULL WHERE id = \(ids[1])") == Self.denied)
        #expect(try await verdicts() == [.delivered, .alreadyDelivered, .ownedByAnotherUser, .pending])
        #expect(await Self.refusal(fixture.owner, "UPDATE receiptq.jobs SET state = 'rejected' WHERE id = \(ids[2])") == nil)
        let api = try await fixture.pool(.api)
        defer { api.shutdown() }
        for sql in ["UPDATE receiptq.jobs SET state = 'granted' WHERE id = \(ids[2])", "SELECT receiptq.append_failed_job_events(ARRAY[1]::bigint[])"] {
            #expect(await Self.refusal(api, sql) == Self.denied, "the API role ran: \(sql)")
        }
    }

    @Test func aClaimIsTrustedOnlyWithTheTokenOfABackendTheDatabaseTrustsNeverOnTheAPIsWord() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.shutdown() }
        let trusted = "backend-token-\(UUID().uuidString)", other = "other-token-\(UUID().uuidString)"
        func digest(_ token: String) async throws -> String {   // as `receiptq api` takes it: SHA-256, hex
            try await fixture.owner.query("SELECT encode(sha256(convert_to($1, 'UTF8')), 'hex') AS d", [token])[0].decode("d")
        }
        let trustedDigest = try await digest(trusted), otherDigest = try await digest(other)
        try await fixture.owner.withConnection { try TrustedClaimTokens.add(digest: trustedDigest, note: "billing", on: $0) }
        let api = try await fixture.pool(.api)
        defer { api.shutdown() }
        let queue = JobQueue(pool: api)
        let jobs = try await queue.enqueue([
            .transactionID("t1", userID: "u1", trustedClaim: true, claimProof: ClaimProof(token: trusted)),
            .transactionID("t2", userID: "u2", trustedClaim: true),                                          // the API's word alone
            .transactionID("t3", userID: "u3", trustedClaim: true, claimProof: ClaimProof(token: other)),  // a token the database does not trust
            .transactionID("t4", userID: "u4", claimProof: ClaimProof(token: trusted)),                    // a proof without the mark marks nothing
        ])
        let rows = try await fixture.owner.query("""
            SELECT id, trusted_claim, claim_proof IS NOT NULL AS stored FROM receiptq.jobs WHERE id = ANY($1::bigint[]) ORDER BY transaction_id
            """, [jobs.map(\.id)])
        #expect(try rows.map { try $0.decode("trusted_claim", as: Bool.self) } == [true, false, false, false])
        #expect(try rows.allSatisfy { try !$0.decode("stored", as: Bool.self) }, "a token is never stored")
        // As a forger would, straight in SQL: the same.
        let forged = try await api.query("""
            INSERT INTO receiptq.jobs (kind, transaction_id, user_id, trusted_claim) VALUES ('transaction_id', 't5', 'mallory', true)
            RETURNING trusted_claim
            """)
        #expect(try forged[0].decode("trusted_claim", as: Bool.self) == false)
        // Only the owner writes the list; the API reads it (to refuse a configuration the database would not believe).
        #expect(await Self.refusal(api, "INSERT INTO receiptq.trusted_claim_tokens (digest) VALUES ('\(String(repeating: "a", count: 64))')")
                == Self.denied)
        #expect(await Self.refusal(api, "SELECT claim_proof FROM receiptq.jobs") == Self.denied)
        #expect(try await api.withConnection { try TrustedClaimTokens.unregistered([trustedDigest, otherDigest], on: $0) } == [otherDigest])
    }

    @Test func onlyTheOwnerNamesWhoOwnsAHistoryNobodyPlacesTheAPIQueuesRestoresThatVouchForNobody() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.shutdown() }
        let api = try await fixture.pool(.api)
        let worker = try await fixture.pool(.worker)
        defer { api.shutdown(); worker.shutdown() }
        // A backfill naming a user makes that user the owner of every unplaced purchase in the history:
        // the API's and the workers' logins may not write one, in SQL or through the product's own statement.
        for pool in [api, worker] {
            #expect(await Self.refusal(pool, """
                INSERT INTO receiptq.history_syncs (original_transaction_id, environment, user_id, reason)
                VALUES ('2000000000001', 'Production', 'mallory', 'backfill')
                """) == Self.denied)
        }
        await #expect(throws: PostgresError.self) {
            try await api.withConnection {
                try QueueHistorySync.run(originalTransactionID: "2000000000002", environment: "Production", userID: "mallory", reason: .backfill, on: $0)
            }
        }
        // A restore names who asked, and vouches for nobody: the API queues it, and cannot turn it into a backfill.
        let restore = try await api.withConnection {
            try QueueHistorySync.run(originalTransactionID: "2000000000003", environment: "Production", userID: "u1", reason: .request, on: $0)
        }
        #expect(restore.state == "queued")
        #expect(await Self.refusal(api, "UPDATE receiptq.history_syncs SET reason = 'backfill' WHERE original_transaction_id = '2000000000003'")
                == Self.denied)
        // The owner's login (`receiptq sync --user-id`, as migrate runs) may; a backfill of the whole ledger names nobody.
        let vouched = try await fixture.owner.withConnection {
            try QueueHistorySync.run(originalTransactionID: "2000000000004", environment: "Production", userID: "player42", reason: .backfill, on: $0)
        }
        #expect(vouched.userID == "player42")
        #expect(await Self.refusal(api, """
            INSERT INTO receiptq.history_syncs (original_transaction_id, environment, reason) VALUES ('2000000000005', 'Production', 'backfill')
            """) == nil)
    }

    @Test func createLoginMakesAMemberOfTheGroupWithoutSendingThePasswordAndRefusesASuperuser() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.shutdown() }
        let login = "rq_test_made_\(UInt32.random(in: 0...UInt32.max))"
        let password = "correct horse battery \(UUID().uuidString)"
        defer { Task { [owner = fixture.database] in
            let pool = owner.pool(size: 1)
            _ = try? await pool.query("DROP ROLE IF EXISTS \(login)")   // generated name: letters and digits
            pool.shutdown()
        } }
        let created = try await fixture.owner.withConnection { try CreateLogin.run(login: login, password: password, role: .readonly, on: $0) }
        #expect(created == .created)
        let stored: String = try await fixture.owner.query("SELECT rolpassword FROM pg_authid WHERE rolname = $1", [login])[0].decode("rolpassword")
        #expect(stored.hasPrefix("SCRAM-SHA-256$") && !stored.contains(password))
        // It logs in with that password (not the suite's) and reads what readonly may.
        var components = try #require(URLComponents(string: fixture.database.configuration.connectionString(database: fixture.database.name, user: login)))
        components.password = password
        let asLogin = PostgresPool(configuration: try PostgresConfiguration(connectionString: try #require(components.string)), size: 1)
        defer { asLogin.shutdown() }
        #expect(try await asLogin.query("SELECT count(*) FROM receiptq.queue_depth")[0].decode("count", as: Int.self) == 3)
        #expect(await Self.refusal(asLogin, "SELECT receipt_data FROM receiptq.jobs") == Self.denied)
        #expect(try await fixture.owner.withConnection { try CreateLogin.run(login: login, password: nil, role: .readonly, on: $0) } == .updated)
        let superuser = try #require(fixture.database.configuration.parameter("user"))
        await #expect(throws: PostgresError.self) {
            try await fixture.owner.withConnection { try CreateLogin.run(login: superuser, password: "x", role: .api, on: $0) }
        }
        await #expect(throws: PostgresError.self) {
            try await fixture.owner.withConnection { try CreateLogin.run(login: "receiptq_worker", password: "x", role: .api, on: $0) }
        }
    }

    /// Migration 0024: support acts only through its narrow paths; the worker beats and reads the
    /// pause switch; the read-only login reads the audit log and the live workers, and acts on nothing.
    @Test func supportWritesOnlyAuditedPathsWorkersBeatAndReadonlyOnlyReads() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.shutdown() }
        let support = try await fixture.pool(.support)
        let worker = try await fixture.pool(.worker)
        let readonly = try await fixture.pool(.readonly)
        defer { support.shutdown(); worker.shutdown(); readonly.shutdown() }
        let action = try SupportAction(actor: "alice", why: "role test")
        // Support: pauses (audited), reads what readonly reads, inserts audit rows only.
        _ = try await support.withConnection { try FleetControl.set(paused: true, action, on: $0) }
        #expect(try await support.query("SELECT count(*) FROM receiptq.queue_depth")[0].decode("count", as: Int.self) == 3)
        for sql in [
            "UPDATE receiptq.support_audit SET why = 'x'",
            "DELETE FROM receiptq.support_audit",
            "INSERT INTO receiptq.support_audit (actor, login, action, subject, why) VALUES ('a', 'someone-else', 'x', 'y', 'z')",
            "INSERT INTO receiptq.events (type, user_id, body) VALUES ('grant.revoked', 'u', '{}')",
            "INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment, purchase_key) VALUES ('t', 't', 1, 'u', 'p', 'Production', 'purchase:t')",
            "DELETE FROM receiptq.jobs",
            "SELECT receipt_data FROM receiptq.jobs",
            "DELETE FROM receiptq.worker_heartbeats",
            "SELECT receiptq.append_job_events(ARRAY[1::bigint])",
        ] {
            #expect(await Self.refusal(support, sql) == Self.denied, "the support role ran: \(sql)")
        }
        // Workers: beat and read the switch; never flip it, never read the audit log's writes away.
        try await worker.withConnection { try WorkerHeartbeats.beat(worker: "w1", host: "h", pid: 1, interval: .seconds(5), on: $0) }
        try await worker.withConnection { try WorkerHeartbeats.beat(worker: "w1", host: "h", pid: 1, interval: .seconds(5), on: $0) }
        #expect(try await worker.query("SELECT paused FROM receiptq.fleet_control")[0].decode("paused", as: Bool.self))
        for sql in ["UPDATE receiptq.fleet_control SET paused = false", "INSERT INTO receiptq.support_audit (actor, action, subject, why) VALUES ('w', 'x', 'y', 'z')",
                    "SELECT receiptq.support_grant('w', 'why', 'u', 'p', 'r', 'consumable', NULL)"] {
            #expect(await Self.refusal(worker, sql) == Self.denied, "the worker role ran: \(sql)")
        }
        // Read-only: reads the audit log and the live workers; acts on nothing.
        #expect(try await readonly.query("SELECT count(*) FROM receiptq.support_audit")[0].decode("count", as: Int.self) == 1)
        #expect(try await readonly.withConnection { try WorkerHeartbeats.list(on: $0) }.map(\.worker) == ["w1"])
        for sql in ["UPDATE receiptq.fleet_control SET paused = false", "INSERT INTO receiptq.support_audit (actor, action, subject, why) VALUES ('r', 'x', 'y', 'z')",
                    "SELECT receiptq.support_revoke('r', 'why', 'purchase:t')", "UPDATE receiptq.jobs SET state = 'queued'"] {
            #expect(await Self.refusal(readonly, sql) == Self.denied, "the read-only role ran: \(sql)")
        }
    }
}
