import Postgres

/// The API tokens whose transaction-id claims the database believes (`receiptq.trusted_claim_tokens`,
/// migration 0022), kept as hex SHA-256 digests. The owner writes them (`receiptq trusted-claims`);
/// the API only reads them, to refuse a `--trusted-claim-tokens` the database would not believe.
/// A claim marked trusted keeps its mark only when it arrives with a token whose digest is here
/// (`ClaimProof`, checked by the `jobs_check_trusted_claim` trigger): the API's password alone
/// vouches for nobody.
public enum TrustedClaimTokens {
    public struct Entry: Sendable, Equatable {
        public var digest: String
        public var note: String?
        public var addedBy: String
    }

    static let addSQL = """
        INSERT INTO receiptq.trusted_claim_tokens (digest, note) VALUES ($1, $2)
        ON CONFLICT (digest) DO UPDATE SET note = coalesce(EXCLUDED.note, receiptq.trusted_claim_tokens.note)
        """
    static let removeSQL = "DELETE FROM receiptq.trusted_claim_tokens WHERE digest = $1 RETURNING digest"
    static let listSQL = "SELECT digest, note, added_by FROM receiptq.trusted_claim_tokens ORDER BY added_at, digest"

    /// Trusts `digest` (64 lowercase hex digits) for claims; adding one already there keeps it
    /// (and replaces its note when one is given).
    public static func add(digest: String, note: String?, on connection: PostgresConnection) throws {
        try connection.query(addSQL, [digest, note])
    }

    /// Stops trusting `digest`: claims it sends from now on are plain claims. Whether it was there.
    public static func remove(digest: String, on connection: PostgresConnection) throws -> Bool {
        try !connection.query(removeSQL, [digest]).isEmpty
    }

    public static func list(on connection: PostgresConnection) throws -> [Entry] {
        try connection.query(listSQL).map {
            Entry(digest: try $0.decode("digest"), note: try $0.decodeIfPresent("note"), addedBy: try $0.decode("added_by"))
        }
    }

    /// The digests of `digests` that the database does not trust.
    public static func unregistered(_ digests: [String], on connection: PostgresConnection) throws -> [String] {
        let registered = Set(try list(on: connection).map(\.digest))
        return digests.filter { !registered.contains($0) }
    }
}
