import Foundation
import Postgres

/// The schema a database holds, as lines a person reads — every table and its columns, every
/// constraint, index, trigger, function (its signature, security and body), view and privilege —
/// and the differences between the live `receiptq` schema and `SQL/schema.sql` (`receiptq schema
/// verify`, and `receiptq migrate` before it says it is done).
///
/// To compare with `schema.sql` it needs no second database: inside a transaction it rolls back,
/// it runs `schema.sql` into a scratch schema of its own, reads both catalogs the same way — the
/// schema's name written `receiptq`, an object's owner written `OWNER` (an install's owner login is
/// its own) — and compares the lines. So a dropped trigger, a hand-made index, a function changed
/// by hand, a privilege granted or revoked by hand: each is a line missing or extra.
public enum SchemaCatalog {
    /// One line per fact about schema `$1`, its name written `receiptq`.
    static let sql = """
        WITH n AS (SELECT oid, nspname FROM pg_catalog.pg_namespace WHERE nspname = $1),
        rel AS (
            SELECT c.oid, c.relname, c.relkind, c.relacl, pg_catalog.pg_get_userbyid(c.relowner) AS owner
            FROM pg_catalog.pg_class c JOIN n ON n.oid = c.relnamespace
            WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S')
        ),
        lines AS (
            SELECT 'relation ' || CASE r.relkind WHEN 'r' THEN 'table' WHEN 'p' THEN 'partitioned table' WHEN 'v' THEN 'view'
                                                 WHEN 'm' THEN 'materialized view' ELSE 'sequence' END || ' ' || r.relname AS line
            FROM rel r
            UNION ALL
            SELECT 'column ' || r.relname || '.' || a.attname || ' ' || pg_catalog.format_type(a.atttypid, a.atttypmod)
                   || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
                   || CASE WHEN a.attidentity <> '' THEN ' identity ' || a.attidentity::text ELSE '' END
                   || coalesce(' default ' || pg_catalog.pg_get_expr(d.adbin, d.adrelid), '')
            FROM rel r JOIN pg_catalog.pg_attribute a ON a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped
            LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = r.oid AND d.adnum = a.attnum
            UNION ALL
            SELECT 'constraint ' || r.relname || '.' || k.conname || ' ' || pg_catalog.pg_get_constraintdef(k.oid)
            FROM rel r JOIN pg_catalog.pg_constraint k ON k.conrelid = r.oid
            UNION ALL
            SELECT 'index ' || r.relname || '.' || i.relname || ' ' || pg_catalog.pg_get_indexdef(x.indexrelid)
            FROM rel r JOIN pg_catalog.pg_index x ON x.indrelid = r.oid JOIN pg_catalog.pg_class i ON i.oid = x.indexrelid
            UNION ALL
            SELECT 'trigger ' || r.relname || '.' || t.tgname || ' ' || pg_catalog.pg_get_triggerdef(t.oid)
                   || CASE t.tgenabled WHEN 'D' THEN ' (disabled)' ELSE '' END
            FROM rel r JOIN pg_catalog.pg_trigger t ON t.tgrelid = r.oid AND NOT t.tgisinternal
            UNION ALL
            SELECT 'view ' || r.relname || ' ' || md5(replace(pg_catalog.pg_get_viewdef(r.oid), $1, 'receiptq'))
            FROM rel r WHERE r.relkind IN ('v', 'm')
            UNION ALL
            SELECT 'privilege ' || r.relname || ' ' || replace(split_part(acl::text, '/', 1), r.owner || '=', 'OWNER=')
            FROM rel r CROSS JOIN LATERAL unnest(r.relacl) AS acl
            UNION ALL
            SELECT 'privilege ' || r.relname || '.' || a.attname || ' ' || split_part(acl::text, '/', 1)
            FROM rel r JOIN pg_catalog.pg_attribute a ON a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped
            CROSS JOIN LATERAL unnest(a.attacl) AS acl
            UNION ALL
            SELECT 'function ' || p.proname || '(' || pg_catalog.pg_get_function_identity_arguments(p.oid) || ') returns '
                   || pg_catalog.pg_get_function_result(p.oid)
                   || CASE WHEN p.prosecdef THEN ' security definer' ELSE '' END
                   || coalesce(' set ' || array_to_string(p.proconfig, ', '), '')
                   || ' body ' || md5(replace(p.prosrc, $1, 'receiptq'))
            FROM pg_catalog.pg_proc p JOIN n ON n.oid = p.pronamespace
            UNION ALL
            SELECT 'privilege function ' || p.proname || '(' || pg_catalog.pg_get_function_identity_arguments(p.oid) || ') '
                   || replace(split_part(acl::text, '/', 1), pg_catalog.pg_get_userbyid(p.proowner) || '=', 'OWNER=')
            FROM pg_catalog.pg_proc p JOIN n ON n.oid = p.pronamespace CROSS JOIN LATERAL unnest(p.proacl) AS acl
            UNION ALL
            SELECT 'privilege schema ' || replace(split_part(acl::text, '/', 1), pg_catalog.pg_get_userbyid(s.nspowner) || '=', 'OWNER=')
            FROM pg_catalog.pg_namespace s JOIN n ON n.oid = s.oid CROSS JOIN LATERAL unnest(s.nspacl) AS acl
        )
        SELECT DISTINCT replace(line, $1, 'receiptq') AS line FROM lines ORDER BY 1
        """

    /// What the database differs in from the schema it was compared with.
    public struct Differences: Sendable, Equatable {
        /// In the schema, not in the database (or not as the schema has it).
        public var missing: [String]
        /// In the database, not in the schema: a hand-made index, a privilege granted by hand.
        public var extra: [String]

        public var isEmpty: Bool { missing.isEmpty && extra.isEmpty }
    }

    /// The lines of schema `name`.
    public static func read(schema name: String, on connection: PostgresConnection) throws -> [String] {
        try connection.query(sql, [name]).map { try $0.decode("line") }
    }

    /// What two lines are compared by: a definition's parentheses and spaces do not count.
    /// PostgreSQL prints an expression the way it parsed it, and a `BETWEEN` written in a migration
    /// and the same condition read back from `schema.sql` parse into differently nested `AND`s.
    static func key(_ line: String) -> String {
        String(line.unicodeScalars.filter { $0 != "(" && $0 != ")" && !$0.properties.isWhitespace }.map(Character.init))
    }

    /// The live `receiptq` schema against `schemaSQL` (`SQL/schema.sql`, as `pg_dump` wrote it).
    /// Needs the right to create a schema in the database (the schema's owner has it); changes
    /// nothing.
    public static func verify(against schemaSQL: String, on connection: PostgresConnection) throws -> Differences {
        let scratch = "receiptq_verify_" + UUID().uuidString.prefix(8).lowercased()
        try connection.query("BEGIN")
        defer { _ = try? connection.query("ROLLBACK") }
        try connection.execute(script: renamingSchema(schemaSQL, to: scratch))
        let expected = Dictionary(try read(schema: scratch, on: connection).map { (key($0), $0) }) { first, _ in first }
        let live = Dictionary(try read(schema: "receiptq", on: connection).map { (key($0), $0) }) { first, _ in first }
        return Differences(missing: expected.filter { live[$0.key] == nil }.map(\.value).sorted(),
                           extra: live.filter { expected[$0.key] == nil }.map(\.value).sorted())
    }

    /// `sql` with the schema `receiptq` renamed `scratch` wherever it names the schema: the word
    /// `receiptq` alone (`receiptq.jobs`, `SCHEMA receiptq`), never inside another name
    /// (`receiptq_api`, `receiptq_results`).
    static func renamingSchema(_ sql: String, to scratch: String) -> String {
        let word = Array("receiptq".utf8)
        let bytes = Array(sql.utf8)
        func isNamePart(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 4096)
        var i = 0
        while i < bytes.count {
            if bytes[i] == word[0], i + word.count <= bytes.count, Array(bytes[i..<(i + word.count)]) == word,
               i == 0 || !isNamePart(bytes[i - 1]), i + word.count == bytes.count || !isNamePart(bytes[i + word.count]) {
                out += Array(scratch.utf8)
                i += word.count
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
