import Postgres
import PostgresTesting
import Testing

@Suite("Postgres: prepared statements")
struct PreparedQueryTests {
    /// Prepared once per session, executed many times with other parameters; a failing
    /// statement is not cached, and two statements get two names.
    @Test func preparedStatementRunsOnceParsedWithNewParametersEachTime() async throws {
        let database = try await ScratchDatabase.create()
        let pool = database.pool(size: 1)
        defer { pool.shutdown() }
        let results = try await pool.withConnection { connection -> [Int64] in
            let sql = "SELECT sum(x)::bigint AS total FROM unnest($1::bigint[]) AS x"
            var totals: [Int64] = []
            for n in 1...8 {
                let values: [Int64] = Array(1...Int64(n))
                let row = try connection.query(prepared: sql, [values])[0]
                totals.append(try row.decode("total", as: Int64.self))
            }
            let other = try connection.query(prepared: "SELECT $1::text || '!' AS s", ["hi"])[0]
            #expect(try other.decode("s", as: String.self) == "hi!")
            #expect(throws: PostgresError.self) { try connection.query(prepared: "SELECT * FROM no_such_table WHERE a = $1", [Int64(1)]) }
            let count = try connection.query("SELECT count(*)::bigint AS n FROM pg_prepared_statements")[0]
            #expect(try count.decode("n", as: Int64.self) == 2)
            return totals
        }
        let expected: [Int64] = [1, 3, 6, 10, 15, 21, 28, 36]
        #expect(results == expected)
    }

    /// A prepared statement's parameter types are fixed when it is prepared: a call that sends
    /// NULL where an array of strings went (or the other way round) gets a statement of its own.
    @Test func aNullWhereAnArrayOfStringsWentPreparesASecondStatement() async throws {
        let database = try await ScratchDatabase.create()
        let pool = database.pool(size: 1)
        defer { pool.shutdown() }
        try await pool.withConnection { connection in
            let sql = "SELECT coalesce(cardinality($1::uuid[]), -1)::bigint AS n"
            #expect(try connection.query(prepared: sql, [nil])[0].decode("n", as: Int64.self) == -1)
            #expect(try connection.query(prepared: sql, [["A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"]])[0].decode("n", as: Int64.self) == 1)
            #expect(try connection.query(prepared: sql, [nil])[0].decode("n", as: Int64.self) == -1)
            let count = try connection.query("SELECT count(*)::bigint AS n FROM pg_prepared_statements")[0]
            #expect(try count.decode("n", as: Int64.self) == 2)
        }
    }
}
