import Postgres

/// Whether a commit is durable for a login: the API's `202` means "committed in PostgreSQL", and
/// that holds only while a commit waits for its WAL to reach disk (`synchronous_commit` not `off`,
/// `fsync` on). A setting the database, the role or the server gives the API's login can break the
/// promise without a sign: the API reads its own session's settings at start and says so
/// (docs/postgresql.md).
public struct CommitDurability: Sendable, Equatable {
    public var synchronousCommit: String
    public var fsync: String

    static let sql = "SELECT current_setting('synchronous_commit') AS synchronous_commit, current_setting('fsync') AS fsync"

    public init(synchronousCommit: String, fsync: String) {
        self.synchronousCommit = synchronousCommit
        self.fsync = fsync
    }

    public static func read(on connection: PostgresConnection) throws -> CommitDurability {
        let row = try connection.query(sql)[0]
        return CommitDurability(synchronousCommit: try row.decode("synchronous_commit"), fsync: try row.decode("fsync"))
    }

    /// Why a 202 may not survive a crash with these settings; empty when it will.
    public var problems: [String] {
        var found: [String] = []
        if synchronousCommit == "off" {
            found.append("synchronous_commit is off for this login: a commit returns before its WAL is on disk, so a 202 "
                + "answered in the last moments before a crash can be lost (set it to on, local or a synchronous-replica level)")
        }
        if fsync == "off" {
            found.append("fsync is off on this server: a crash can lose or corrupt committed data, 202s included")
        }
        return found
    }
}
