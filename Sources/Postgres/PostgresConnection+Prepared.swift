import CLibPQ

extension PostgresConnection {
    /// Runs one statement like `query(_:_:)`, but parses and plans it once per session: the
    /// first call prepares it (`PQprepare`), later calls only execute it (`PQexecPrepared`).
    ///
    /// Why: a hot statement run many times per second on the same connection (the API's group
    /// commit insert) paid PostgreSQL's parse, analysis and planning every time (0.3–0.4 ms per
    /// batch). PostgreSQL replans by itself when a table the statement uses changes. A new
    /// connection (after a reconnect) starts with no prepared statements and prepares again.
    @discardableResult
    public func query(prepared sql: String, _ parameters: [(any PostgresEncodable)?] = []) throws -> PostgresRows {
        let encoded = PostgresParameters(parameters)
        // The types declared at PQprepare are the statement's for good: a call whose parameters
        // declare others (a NULL where an array of strings was) gets a statement of its own.
        let key = encoded.types.map(String.init).joined(separator: ",") + "|" + sql
        let name: String
        if let existing = preparedStatements[key] {
            name = existing
        } else {
            name = "receiptq_\(preparedStatements.count + 1)"   // generated here: never user input
            let prepared = encoded.withPointers { _, _, _, types in PQprepare(handle, name, sql, encoded.count, types) }
            _ = try consume(prepared)
            preparedStatements[key] = name
        }
        let result = encoded.withPointers { values, lengths, formats, _ in
            PQexecPrepared(handle, name, encoded.count, values, lengths, formats, 0)
        }
        return try consume(result)
    }
}
