import Foundation
import Postgres

/// Where a database stands against a set of schema files (`receiptq migrate --status`): each
/// numbered migration applied (when), pending, or drifted — applied from a text other than the
/// file's, which `migrate` refuses — and each repeatable file current, changed or new; and what the
/// database applied that the files do not have (a newer release's migrations).
public struct MigrationStatus: Sendable, Equatable {
    public enum State: String, Sendable, Equatable {
        case applied
        case pending
        /// Applied from another text: the file changed after it landed.
        case drifted
        /// A repeatable file as last applied.
        case current
        /// A repeatable file whose text differs from what was applied: the next migrate applies it.
        case changed
        /// Applied to the database, and not among the files: a newer release migrated it.
        case unknown
    }

    public struct Entry: Sendable, Equatable {
        public var path: String
        public var state: State
        public var appliedAt: Date?
        /// The recorded and the file's SHA-256, for a drifted migration.
        public var recorded: String?
        public var expected: String?
    }

    public var entries: [Entry]

    public var drifted: [Entry] { entries.filter { $0.state == .drifted } }
    public var pending: [Entry] { entries.filter { $0.state == .pending || $0.state == .changed } }
    public var unknown: [Entry] { entries.filter { $0.state == .unknown } }

    static let appliedSQL = """
        SELECT version, name, checksum, applied_at FROM receiptq.schema_migrations ORDER BY version
        """
    static let repeatablesSQL = "SELECT name, checksum, applied_at FROM receiptq.schema_repeatables"
    static let checksumsSQL = """
        SELECT f.name, encode(sha256(convert_to(f.sql, 'UTF8')), 'hex') AS checksum FROM unnest($1::text[], $2::text[]) AS f(name, sql)
        """

    public static func read(_ migrations: [Migration], on connection: PostgresConnection) throws -> MigrationStatus {
        let exists: Bool = try connection.query("SELECT to_regclass('receiptq.schema_migrations') IS NOT NULL AS present")[0].decode("present")
        var checksums: [String: String] = [:]
        for row in try connection.query(checksumsSQL, [migrations.map(\.path), migrations.map(\.sql)]) {
            checksums[try row.decode("name")] = try row.decode("checksum")
        }
        var applied: [Int: (name: String, checksum: String, at: Date)] = [:]
        var repeatables: [String: (checksum: String, at: Date)] = [:]
        if exists {
            for row in try connection.query(appliedSQL) {
                applied[try row.decode("version")] = (try row.decode("name"), try row.decode("checksum"), try row.decode("applied_at"))
            }
            if try connection.query("SELECT to_regclass('receiptq.schema_repeatables') IS NOT NULL AS present")[0].decode("present", as: Bool.self) {
                for row in try connection.query(repeatablesSQL) {
                    repeatables[try row.decode("name")] = (try row.decode("checksum"), try row.decode("applied_at"))
                }
            }
        }
        var entries: [Entry] = []
        for migration in migrations {
            let expected = checksums[migration.path]
            switch migration.kind {
            case .versioned:
                if let record = applied.removeValue(forKey: migration.version) {
                    let drifted = record.checksum != expected
                    entries.append(Entry(path: migration.path, state: drifted ? .drifted : .applied, appliedAt: record.at,
                                         recorded: drifted ? record.checksum : nil, expected: drifted ? expected : nil))
                } else {
                    entries.append(Entry(path: migration.path, state: .pending))
                }
            case .repeatable:
                let record = repeatables[migration.name]
                entries.append(Entry(path: migration.path, state: record == nil ? .pending : record!.checksum == expected ? .current : .changed,
                                     appliedAt: record?.at))
            }
        }
        for (_, record) in applied.sorted(by: { $0.key < $1.key }) {
            entries.append(Entry(path: "migrations/" + record.name, state: .unknown, appliedAt: record.at))
        }
        return MigrationStatus(entries: entries)
    }
}
