import Foundation
import Postgres

/// A backend that receives events by HTTPS POST. `secrets` sign each delivery (two while one is
/// rotated out); they are never logged, and `description` leaves them out.
public struct WebhookEndpoint: Sendable, Equatable, CustomStringConvertible {
    public var id: String
    public var url: String
    public var secrets: [String]
    /// Event types or `prefix.*` patterns; nil: every event.
    public var eventTypes: [String]?
    public var enabled: Bool

    public init(id: String, url: String, secrets: [String], eventTypes: [String]? = nil, enabled: Bool = true) {
        self.id = id
        self.url = url
        self.secrets = secrets
        self.eventTypes = eventTypes
        self.enabled = enabled
    }

    public var description: String {
        "WebhookEndpoint(\(id), \(url), \(secrets.count) secret(s), events: \(eventTypes?.joined(separator: ",") ?? "all"), \(enabled ? "enabled" : "disabled"))"
    }

    /// The rules the schema enforces, as a clear error before any SQL: an id of letters, digits,
    /// `._-`; an https URL (plain http only to loopback, for tests and local receivers); one or
    /// two secrets of at least 16 characters.
    public func validate() throws(WebhookEndpointError) {
        guard id.range(of: "^[A-Za-z0-9_.-]{1,64}$", options: .regularExpression) != nil else {
            throw .init("endpoint id must be 1-64 letters, digits, '.', '_' or '-'")
        }
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), let host = parsed.host?.lowercased() else {
            throw .init("url must be an absolute https URL")
        }
        let loopback = ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host)
        guard scheme == "https" || (scheme == "http" && loopback) else {
            throw .init("url must be https (plain http only to 127.0.0.1 or localhost)")
        }
        guard (1...2).contains(secrets.count), secrets.allSatisfy({ $0.utf8.count >= 16 && $0.utf8.count <= 256 }) else {
            throw .init("give one or two secrets of 16 to 256 characters")
        }
        if let eventTypes, eventTypes.isEmpty || eventTypes.contains(where: { $0.isEmpty || $0.utf8.count > 64 }) {
            throw .init("event types must be non-empty names such as verdict.delivered or verdict.*")
        }
    }
}

public struct WebhookEndpointError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// Adds an endpoint or replaces its settings; deliveries of events appended from now on fan out
/// to it. Sends NOTIFY receiptq_webhooks so deliverers reload their endpoints.
public enum UpsertWebhookEndpoint {
    static let sql = """
        INSERT INTO receiptq.webhook_endpoints (id, url, secrets, event_types, enabled)
        VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (id) DO UPDATE SET url = excluded.url, secrets = excluded.secrets, event_types = excluded.event_types,
                                       enabled = excluded.enabled, updated_at = now()
        """

    public static func run(_ endpoint: WebhookEndpoint, on connection: PostgresConnection) throws {
        try connection.transaction { connection in
            try connection.query(sql, [endpoint.id, endpoint.url, endpoint.secrets, endpoint.eventTypes, endpoint.enabled])
            try connection.query("SELECT pg_notify('receiptq_webhooks', '')")
        }
    }
}

/// Removes an endpoint and its deliveries (cascade). Returns whether it existed.
public enum RemoveWebhookEndpoint {
    public static func run(id: String, on connection: PostgresConnection) throws -> Bool {
        try connection.transaction { connection in
            let removed = try connection.query("DELETE FROM receiptq.webhook_endpoints WHERE id = $1", [id]).affectedRows > 0
            try connection.query("SELECT pg_notify('receiptq_webhooks', '')")
            return removed
        }
    }
}

/// Every endpoint, by id.
public enum ListWebhookEndpoints {
    static let sql = """
        SELECT id, url, to_json(secrets)::text AS secrets, to_json(event_types)::text AS event_types, enabled
        FROM receiptq.webhook_endpoints ORDER BY id
        """

    public static func run(on connection: PostgresConnection) throws -> [WebhookEndpoint] {
        try connection.query(sql).map { row in
            WebhookEndpoint(id: try row.decode("id"), url: try row.decode("url"),
                            secrets: try JSONDecoder().decode([String].self, from: Data(try row.decode("secrets", as: String.self).utf8)),
                            eventTypes: try row.decodeIfPresent("event_types", as: String.self)
                                .map { try JSONDecoder().decode([String].self, from: Data($0.utf8)) },
                            enabled: try row.decode("enabled"))
        }
    }
}
