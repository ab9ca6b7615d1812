import Postgres

/// One list the console pages through (`ConsolePaging`): a statement whose filters are its own
/// parameters (`$1…`) and whose `{page}`, `{order}` and `{limit}` the page's cursor fills in with
/// fixed text and further parameters — nothing a request sent is ever spliced into SQL. `keys`
/// are its sort key, newest first, unique together; every list selects `page_key`, the cursor of
/// a row (`micros_id`), and names the index whose order it walks, so a page costs its size, not
/// the table's (EXPLAINs on a million jobs: docs/console.md, "Paging").
struct ConsoleList: Sendable {
    let sql: String
    let keys: [String]
    let shape: [ConsolePaging.Part]

    /// `<timestamp>` as whole microseconds since 1970, exact (extract answers numeric), then the ids.
    static func key(_ timestamp: String, _ ids: String...) -> String {
        "(extract(epoch FROM \(timestamp)) * 1000000)::bigint::text || '_' || " + ids.map { "\($0)::text" }.joined(separator: " || '_' || ")
    }

    /// The statement for `paging`, with the parameters its cursor adds after `filters`.
    func statement(_ paging: ConsolePaging, filters: Int) -> (sql: String, parameters: [String]) {
        let clause = paging.clause(keys, shape: shape, first: filters + 1)
        let text = sql.replacingOccurrences(of: "{page}", with: clause.condition)
            .replacingOccurrences(of: "{order}", with: clause.order)
            .replacingOccurrences(of: "{limit}", with: String(clause.limit))
        return (ConsoleQueries.rows(text), clause.parameters)
    }

    /// One page of the list: its rows newest first, and whether older and newer pages exist.
    func page(_ paging: ConsolePaging, _ filters: [(any PostgresEncodable)?], on pool: PostgresPool)
        async throws -> (rows: [[String: Any]], older: Bool, newer: Bool) {
        let (sql, cursor) = statement(paging, filters: filters.count)
        return paging.page(try await ConsoleQueries.run(sql, filters + cursor.map { $0 as (any PostgresEncodable)? }, on: pool))
    }
}
