/// The schema the binary carries: every numbered migration, every function and view file, and
/// `SQL/schema.sql`, byte for byte (`EmbeddedSQL+Files.swift`, written from `SQL/` by
/// `Deploy/embed-sql`; `SchemaTests` fails when the two disagree). So `receiptq migrate` needs no
/// files: a copy of the binary alone installs and upgrades its schema, and can say what a
/// database should hold.
public enum EmbeddedSQL {
    /// The migrations and repeatable files, in the order `receiptq migrate` applies them.
    public static func migrations() throws -> [Migration] {
        try Migration.parse(files.filter { $0.path != schemaPath })
    }

    /// `SQL/schema.sql`: what a database migrated by this binary holds (`pg_dump --schema-only`).
    public static var schema: String {
        files.first { $0.path == schemaPath }?.sql ?? ""
    }

    static let schemaPath = "schema.sql"
}
