import Foundation

/// One SQL file of the schema: a numbered migration (`migrations/NNNN_name.sql`), applied once,
/// or a repeatable one (`functions/name.sql`, `views/name.sql`), the one home of a function's or
/// a view's current definition, applied again whenever it changes. The binary carries them all
/// (`EmbeddedSQL`); a folder of them (`--migrations`) is for developing the schema.
public struct Migration: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Applied once, in version order; never edited after it was applied.
        case versioned
        /// `CREATE OR REPLACE` of one function or view, applied after every numbered migration
        /// whenever its text differs from what was applied last.
        case repeatable
    }

    /// The numbered migration's version; 0 for a repeatable one.
    public var version: Int
    public var name: String
    public var sql: String
    public var kind: Kind

    public init(version: Int, name: String, sql: String, kind: Kind = .versioned) {
        self.version = version
        self.name = name
        self.sql = sql
        self.kind = kind
    }

    /// A repeatable file, named by its folder: `functions/move_owner.sql`.
    public static func repeatable(_ name: String, sql: String) -> Migration {
        Migration(version: 0, name: name, sql: sql, kind: .repeatable)
    }

    /// The folders of repeatable files beside the migrations folder, in the order they are applied
    /// (views may read functions).
    public static let repeatableFolders = ["functions", "views"]

    /// The schema's files, each named by its path under `SQL/` (`migrations/0001_queue.sql`,
    /// `functions/verdict.sql`): the numbered migrations sorted by version, then the repeatable
    /// files folder by folder (functions, then views), each sorted by name. Two migrations with one
    /// version, a migration not named `NNNN_name.sql`, or a file in no known folder is an error.
    public static func parse(_ files: [(path: String, sql: String)]) throws -> [Migration] {
        var migrations: [Migration] = []
        var repeatables: [String: [Migration]] = [:]
        for (path, sql) in files where path.hasSuffix(".sql") {
            let parts = path.split(separator: "/", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw MigrationError("schema file \(path) is in no folder (migrations, functions, views)") }
            let (folder, name) = (parts[0], parts[1])
            if folder == "migrations" {
                let stem = name.dropLast(4)
                guard stem.count > 5, let version = Int(stem.prefix(4)), stem.dropFirst(4).first == "_" else {
                    throw MigrationError("migration file \(name) is not named NNNN_name.sql")
                }
                migrations.append(Migration(version: version, name: name, sql: sql))
            } else if repeatableFolders.contains(folder) {
                repeatables[folder, default: []].append(.repeatable(path, sql: sql))
            } else {
                throw MigrationError("schema file \(path) is in no known folder (migrations, functions, views)")
            }
        }
        migrations.sort { $0.version < $1.version }
        for (a, b) in zip(migrations, migrations.dropFirst()) where a.version == b.version {
            throw MigrationError("two migrations have version \(a.version): \(a.name) and \(b.name)")
        }
        return migrations + repeatableFolders.flatMap { (repeatables[$0] ?? []).sorted { $0.name < $1.name } }
    }

    /// Reads a `SQL/` tree for developing the schema: `directory` is its migrations folder, and the
    /// `functions` and `views` folders must sit beside it — a tree without them is a schema with
    /// parts missing (its triggers, guards and ops views), and is refused.
    public static func load(from directory: URL) throws -> [Migration] {
        var files: [(path: String, sql: String)] = []
        for (folder, url) in [("migrations", directory)] + repeatableFolders.map({ ($0, directory.deletingLastPathComponent().appendingPathComponent($0)) }) {
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: url.path)
            } catch {
                throw MigrationError(folder == "migrations"
                    ? "cannot read migrations folder \(url.path): \(error.localizedDescription)"
                    : "\(url.path) is missing: a schema's \(folder) sit beside its migrations folder (SQL/\(folder)); without them the schema lacks its triggers, guards and views")
            }
            for name in names where name.hasSuffix(".sql") {
                files.append((folder + "/" + name, try String(contentsOf: url.appendingPathComponent(name), encoding: .utf8)))
            }
        }
        return try parse(files)
    }

    /// The numbered migration's name, or the repeatable file's path.
    public var path: String { kind == .versioned ? "migrations/" + name : name }
}
