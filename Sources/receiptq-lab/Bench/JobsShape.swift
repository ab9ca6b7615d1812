import Postgres

/// What the migrations made of `receiptq.jobs` besides its columns and checks: its indexes, its
/// primary key and its triggers, read from the catalogue of the migrated scratch database (so the
/// copy follows the schema as it is, not as this file remembers it).
struct JobsShape: Sendable {
    struct Index: Sendable {
        let name: String
        let definition: String
        let unique: Bool
    }

    let primaryKey: String
    let indexes: [Index]
    let triggers: [String]
    /// Foreign keys of the table, if any (none since migration 0032 dropped the one to the
    /// ledger): left out of both layouts, since the lab loads no ledger rows to point at.
    let foreignKeys: [String]

    static func read(on connection: PostgresConnection) throws -> JobsShape {
        let key = try connection.query("""
            SELECT conname FROM pg_constraint WHERE conrelid = 'receiptq.jobs'::regclass AND contype = 'p'
            """)[0].decode("conname", as: String.self)
        let indexes = try connection.query("""
            SELECT c.relname, pg_get_indexdef(i.indexrelid) AS definition, i.indisunique
            FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            WHERE i.indrelid = 'receiptq.jobs'::regclass AND NOT i.indisprimary ORDER BY c.relname
            """).map { Index(name: try $0.decode("relname"), definition: try $0.decode("definition"), unique: try $0.decode("indisunique")) }
        let triggers = try connection.query("""
            SELECT pg_get_triggerdef(oid) AS definition FROM pg_trigger
            WHERE tgrelid = 'receiptq.jobs'::regclass AND NOT tgisinternal ORDER BY tgname
            """).map { try $0.decode("definition", as: String.self) }
        let foreignKeys = try connection.query("""
            SELECT conname FROM pg_constraint WHERE conrelid = 'receiptq.jobs'::regclass AND contype = 'f' ORDER BY conname
            """).map { try $0.decode("conname", as: String.self) }
        return JobsShape(primaryKey: key, indexes: indexes, triggers: triggers, foreignKeys: foreignKeys)
    }

    /// A unique index on a partitioned table must hold the partition key: `created_at` is
    /// appended to the key columns (before any WHERE), which makes it unique per instant, in
    /// effect per partition — no longer across the table.
    static func partitioned(_ definition: String) -> String {
        guard let open = definition.range(of: " USING btree (") else { return definition }
        var depth = 1
        var index = open.upperBound
        while index < definition.endIndex {
            switch definition[index] {
            case "(": depth += 1
            case ")": depth -= 1
            default: break
            }
            if depth == 0 { break }
            index = definition.index(after: index)
        }
        return String(definition[..<index]) + ", created_at" + String(definition[index...])
    }
}
