import Foundation
import Postgres
import PostgresTesting
import Testing

@Suite("Postgres: connections, parameters, errors")
struct PostgresConnectionTests {
    @Test func parametersRoundTripWithoutEverEnteringTheSQLText() async throws {
        let database = try await ScratchDatabase.create()
        let pool = database.pool(size: 1)
        defer { pool.shutdown() }
        let tricky = "it's \"quoted\" \\ back; DROP TABLE x; -- ünïcødé 🧾"
        let row = try await pool.query("SELECT $1::text AS s, $2::bigint AS n, $3::bool AS b, $4::text AS missing, $5::float8 AS d",
                                       [tricky, Int64(9_007_199_254_740_993), true, nil, 2.5])[0]
        #expect(try row.decode("s", as: String.self) == tricky)
        #expect(try row.decode("n", as: Int64.self) == 9_007_199_254_740_993)
        #expect(try row.decode("b", as: Bool.self))
        #expect(try row.decodeIfPresent("missing", as: String.self) == nil)
        #expect(try row.decode("d", as: Double.self) == 2.5)
    }

    @Test func arrayParametersCarryQuotesBackslashesAndNulls() async throws {
        let database = try await ScratchDatabase.create()
        let pool = database.pool(size: 1)
        defer { pool.shutdown() }
        let values: [String?] = ["plain", "with \"quote\"", "back\\slash", nil, "comma, {brace}", ""]
        let rows = try await pool.query("SELECT v, v IS NULL AS isnull FROM unnest($1::text[]) WITH ORDINALITY AS t(v, o) ORDER BY o", [values])
        #expect(rows.count == values.count)
        for (row, expected) in zip(rows, values) {
            #expect(try row.decodeIfPresent("v", as: String.self) == expected)
        }
        let sum = try await pool.query("SELECT sum(x) AS total FROM unnest($1::bigint[]) AS x", [[Int64(1), 2, 3]])[0]
        #expect(try sum.decode("total", as: Int64.self) == 6)
    }

    /// Arrays of strings travel as a binary `text[]`; statements cast them as they need.
    @Test func stringArraysReachEveryCastTheStatementsUse() async throws {
        let database = try await ScratchDatabase.create()
        let pool = database.pool(size: 1)
        defer { pool.shutdown() }
        let uuid = "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"
        let row = try await pool.query("""
            SELECT ($1::uuid[])[1]::text AS u, cardinality($1::uuid[]) AS n, ($2::jsonb[])[1] ->> 'a' AS j,
                   cardinality($3::text[]) AS empty, array_to_string($4::text[], '|', '∅') AS joined,
                   'b' = ANY($4) AS found
            """, [[uuid, nil] as [String?], [#"{"a":"é"}"#], [String](), ["a", "b", "ü🧾"]])[0]
        #expect(try row.decode("u", as: String.self) == uuid.lowercased())
        #expect(try row.decode("n", as: Int64.self) == 2)
        #expect(try row.decode("j", as: String.self) == "é")
        #expect(try row.decode("empty", as: Int64.self) == 0)
        #expect(try row.decode("joined", as: String.self) == "a|b|ü🧾")
        #expect(try row.decode("found", as: Bool.self))
        // A megabyte-scale batch, as a batch of receipts is.
        let big = (0..<500).map { String(repeating: "Ab+/=", count: 800) + String($0) }
        let total = try await pool.query("SELECT sum(length(v))::bigint AS total, max(v) AS last FROM unnest($1::text[]) AS v", [big])[0]
        #expect(try total.decode("total", as: Int64.self) == Int64(big.reduce(0) { $0 + $1.utf8.count }))
        #expect(try total.decode("last", as: String.self) == big.max())
    }

    /// Each element travels with its length: a NUL inside one is refused by the server, never
    /// silently cut short as a C string would be.
    @Test func aNulInsideAnArrayElementIsRefusedNotTruncated() async throws {
        let database = try await ScratchDatabase.create()
        let pool = database.pool(size: 1)
        defer { pool.shutdown() }
        await #expect(throws: PostgresError.self) {
            _ = try await pool.query("SELECT $1::text[] AS a", [["before\u{0}after"]])
        }
        #expect(try await pool.query("SELECT 1 AS one")[0].decode("one", as: Int64.self) == 1)   // the connection still works
    }

    @Test func timestampsDecodeToTheRightInstant() async throws {
        let database = try await ScratchDatabase.create()
        let pool = database.pool(size: 1)
        defer { pool.shutdown() }
        let row = try await pool.query("""
            SELECT '2026-11-22 03:49:51.123456+00'::timestamptz AS a, '2024-02-29 23:00:00-05:30'::timestamptz AS b,
                   extract(epoch FROM now())::float8 AS now_epoch, now() AS now
            """)[0]
        #expect(abs(try row.decode("a", as: Date.self).timeIntervalSince1970 - 1_795_319_391.123456) < 0.000_01)
        #expect(try row.decode("b", as: Date.self).timeIntervalSince1970 == 1_709_267_400)
        #expect(abs(try row.decode("now", as: Date.self).timeIntervalSince1970 - row.decode("now_epoch", as: Double.self)) < 0.001)
    }

    @Test func uniqueViolationIsRecognisableWithSQLStateAndDetail() async throws {
        let database = try await ScratchDatabase.create()
        let pool = database.pool(size: 1)
        defer { pool.shutdown() }
        try await pool.query("CREATE TABLE t (k text PRIMARY KEY)")
        try await pool.query("INSERT INTO t VALUES ($1)", ["a"])
        let error = await #expect(throws: PostgresError.self) { try await pool.query("INSERT INTO t VALUES ($1)", ["a"]) }
        #expect(error?.isUniqueViolation == true)
        #expect(error?.sqlState == "23505")
        #expect(error?.kind == .server)
        #expect(error?.detail?.contains("already exists") == true)
    }

    @Test func syntaxErrorCarriesSQLStateAndOneLineMessage() async throws {
        let database = try await ScratchDatabase.create()
        let pool = database.pool(size: 1)
        defer { pool.shutdown() }
        let error = await #expect(throws: PostgresError.self) { try await pool.query("SELEC 1") }
        #expect(error?.sqlState == "42601")
        #expect(error?.description.contains("\n") == false)
        // The connection stays usable after a statement error.
        #expect(try await pool.query("SELECT 1 AS one")[0].decode("one", as: Int.self) == 1)
    }

    @Test func transactionRollsBackWhenTheBodyThrows() async throws {
        let database = try await ScratchDatabase.create()
        let pool = database.pool(size: 1)
        defer { pool.shutdown() }
        try await pool.query("CREATE TABLE t (k int)")
        struct Abort: Error {}
        await #expect(throws: Abort.self) {
            try await pool.transaction { connection in
                try connection.query("INSERT INTO t VALUES (1)")
                throw Abort()
            }
        }
        try await pool.transaction { try $0.query("INSERT INTO t VALUES (2)") }
        let rows = try await pool.query("SELECT k FROM t")
        #expect(try rows.map { try $0.decode("k", as: Int.self) } == [2])
    }

    @Test func libpqWorkRunsOnPoolThreadsNotOnTheCooperativePool() async throws {
        let database = try await ScratchDatabase.create()
        let pool = database.pool(size: 2)
        defer { pool.shutdown() }
        // The kernel's thread name, as ps and perf show it (Foundation's `Thread.current.name`
        // once answered the creating thread's name under load).
        let name = try await pool.withConnection { _ in
            (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        }
        #expect(name.hasPrefix("postgres-"))
    }

    @Test func poolReconnectsAfterTheServerDropsItsConnection() async throws {
        let database = try await ScratchDatabase.create()
        let pool = database.pool(size: 1)
        defer { pool.shutdown() }
        let before: Int32 = try await pool.withConnection { $0.backendPID }
        let admin = database.pool(size: 1)
        defer { admin.shutdown() }
        try await admin.query("SELECT pg_terminate_backend($1)", [before])
        // The work that meets the dead connection fails as a connection error; the next gets a new one.
        let first = await #expect(throws: PostgresError.self) { try await pool.query("SELECT 1") }
        #expect(first?.isConnectionFailure == true)
        let after: Int32 = try await pool.withConnection { $0.backendPID }
        #expect(after != before)
    }

    @Test func malformedURLIsRefusedWithoutTheCredentials() throws {
        let error = #expect(throws: PostgresError.self) {
            try PostgresConfiguration(connectionString: "postgresql://user:s3cret@host:notaport/db")
        }
        #expect(error?.kind == .invalidConfiguration)
        #expect(error?.description.contains("malformed") == true)
        #expect(error?.description.contains("s3cret") == false)
        let unknownParameter = #expect(throws: PostgresError.self) {
            try PostgresConfiguration(connectionString: "postgresql://u:p@h/db?bogus_option=1")
        }
        // libpq's own message quotes what it choked on, which can be part of a password: not repeated.
        #expect(unknownParameter?.kind == .invalidConfiguration)
        #expect(unknownParameter?.description.contains("percent-encode") == true)
        #expect(#expect(throws: PostgresError.self) { try PostgresConfiguration(connectionString: "  ") }?.kind == .invalidConfiguration)
    }

    @Test func redactedConfigurationNeverShowsThePassword() throws {
        let uri = try PostgresConfiguration(connectionString: "postgresql://app:s3cret@db.internal:5433/receipts")
        #expect(!uri.redacted.contains("s3cret"))
        #expect(uri.redacted.contains("host=db.internal"))
        let conninfo = try PostgresConfiguration(connectionString: "host=x password=s3cret dbname=y").with(database: "z")
        #expect(!conninfo.redacted.contains("s3cret"))
        #expect(conninfo.redacted.hasSuffix("dbname=z"))
        // However it is printed: a log line, an error, a failed expectation.
        for printed in [String(describing: uri), String(reflecting: uri), "\(uri.with(user: "other"))", String(reflecting: [conninfo])] {
            #expect(!printed.contains("s3cret"), "\(printed)")
        }
    }

    @Test func unreachableServerFailsFastAsAConnectionError() async throws {
        let config = try PostgresConfiguration(connectionString: "postgresql://u:p@127.0.0.1:1/db")
        let pool = PostgresPool(configuration: config, size: 1)
        defer { pool.shutdown() }
        let error = await #expect(throws: PostgresError.self) { try await pool.query("SELECT 1") }
        #expect(error?.kind == .connection)
        #expect(error?.description.contains("\n") == false)
    }
}
