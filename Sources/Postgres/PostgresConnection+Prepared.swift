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
        let name: String
        if let existing = preparedStatements[sql] {
            name = existing
        } else {
            name = "receiptq_\(preparedStatements.count + 1)"   // generated here: never user input
            _ = try consume(PQprepare(handle, name, sql, Int32(parameters.count), nil))
            preparedStatements[sql] = name
        }
        let texts = parameters.map { $0?.postgresText }
        let result = withOptionalCStrings(texts) { pointers in
            PQexecPrepared(handle, name, Int32(texts.count), pointers, nil, nil, 0)
        }
        return try consume(result)
    }
}
