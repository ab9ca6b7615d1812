import Foundation
import Postgres

/// The event feed, oldest first from a cursor: `GET /v1/events?after=<sequence>`. Events are
/// appended in commit order (`AppendJobEvents`), so paging by sequence neither skips nor repeats
/// an event while others are being written. Served by the primary key.
public enum ListEvents {
    static let sql = """
        SELECT sequence, jsonb_build_object('id', id, 'sequence', sequence, 'type', type, 'created_at', created_at,
                                            'user_id', user_id, 'data', body)::text AS json
        FROM receiptq.events
        WHERE sequence > $1                                                 -- primary key
        ORDER BY sequence
        LIMIT $2
        """

    public struct Page: Sendable {
        /// Each event as the JSON a webhook receives.
        public var events: [String]
        /// The last sequence in the page (the next `after`), or the cursor given when empty.
        public var last: Int64
    }

    public static func run(after: Int64, limit: Int, on connection: PostgresConnection) throws -> Page {
        var last = after
        var events: [String] = []
        for row in try connection.query(sql, [after, limit]) {
            last = try row.decode("sequence")
            events.append(try row.decode("json"))
        }
        return Page(events: events, last: last)
    }
}
