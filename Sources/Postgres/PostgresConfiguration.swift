import CLibPQ
import Foundation

/// Where and how to connect: a `postgres://` URI or a `key=value` conninfo string, validated
/// once at start-up so a typo fails with a clear message instead of at first use.
public struct PostgresConfiguration: Sendable {
    /// The connection string exactly as given (may contain a password: never log it; use `redacted`).
    public let connectionString: String
    /// Shown in `pg_stat_activity.application_name`, so ops can see which process holds what.
    /// Default `receiptq`. A value inside the connection string wins.
    public var applicationName: String
    /// Seconds to wait for a TCP connection and authentication. Default 5.
    /// A value inside the connection string wins.
    public var connectTimeoutSeconds: Int

    /// A database name that replaces the one in the connection string (tests and benchmarks
    /// create scratch databases on the configured server). Default nil.
    public private(set) var databaseOverride: String?

    /// A user that replaces the one in the connection string, keeping its password and
    /// everything else (tests log in as each process's role on one server). Default nil.
    public private(set) var userOverride: String?

    /// Conninfo keys whose values are secrets: printed as `***`.
    static let secretKeys: Set<String> = ["password", "sslpassword"]

    /// The connection string with the password left out, safe to print.
    public private(set) var redacted: String

    /// A connection string for another process (e.g. a child `receiptq worker`) that names the
    /// same server and credentials but `database`. Contains the password: never log it.
    public func connectionString(database: String) -> String {
        if connectionString.hasPrefix("postgres://") || connectionString.hasPrefix("postgresql://"),
           var components = URLComponents(string: connectionString) {
            components.path = "/" + database
            if let url = components.string { return url }
        }
        return connectionString + " dbname='" + database.replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    /// The same server and password, logged in as `user` (see `userOverride`).
    public func with(user: String) -> PostgresConfiguration {
        var copy = self
        copy.userOverride = user
        copy.redacted = redacted.split(separator: " ").filter { !$0.hasPrefix("user=") }.joined(separator: " ") + " user=\(user)"
        return copy
    }

    /// A connection string for another process naming the same server and password, but
    /// `database` and `user`. Contains the password: never log it.
    public func connectionString(database: String, user: String) -> String {
        let base = connectionString(database: database)
        if base.hasPrefix("postgres://") || base.hasPrefix("postgresql://"), var components = URLComponents(string: base) {
            components.user = user
            if let url = components.string { return url }
        }
        return base + " user='" + user.replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    /// The value of one conninfo keyword as given (e.g. `password`, `user`), or nil. Holds
    /// secrets for some keywords: never log what it returns.
    public func parameter(_ keyword: String) -> String? {
        guard let options = PQconninfoParse(connectionString, nil) else { return nil }
        defer { PQconninfoFree(options) }
        var index = 0
        while let name = options[index].keyword {
            defer { index += 1 }
            if String(cString: name) == keyword, let value = options[index].val { return String(cString: value) }
        }
        return nil
    }

    /// The same server and credentials, another database.
    public func with(database: String) -> PostgresConfiguration {
        var copy = self
        copy.databaseOverride = database
        copy.redacted = redacted.split(separator: " ").filter { !$0.hasPrefix("dbname=") }.joined(separator: " ")
            + " dbname=\(database)"
        return copy
    }

    public init(connectionString: String, applicationName: String = "receiptq", connectTimeoutSeconds: Int = 5) throws {
        let trimmed = connectionString.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            throw PostgresError(.invalidConfiguration, "database URL is empty (set DATABASE_URL, e.g. postgresql://user:password@127.0.0.1:5432/receiptq)")
        }
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(trimmed, &errorMessage) else {
            // libpq's message quotes the part it choked on, which may be the password: never
            // repeat it (a `%` or a space in a password is the usual cause).
            if let errorMessage { PQfreemem(errorMessage) }
            throw PostgresError(.invalidConfiguration, "database URL is malformed: libpq cannot parse it "
                + "(in a postgresql:// URI, percent-encode %, @, :, / and spaces in the user name and password)")
        }
        defer { PQconninfoFree(options) }
        var shown: [String] = []
        var index = 0
        while let keyword = options[index].keyword {
            defer { index += 1 }
            guard let value = options[index].val else { continue }
            let key = String(cString: keyword)
            if Self.secretKeys.contains(key) { shown.append("\(key)=***"); continue }
            // libpq only checks ports when connecting; a typo should fail at start-up. The value
            // is not repeated: a malformed URI can put part of a password there.
            if key == "port", !String(cString: value).allSatisfy({ $0.isNumber || $0 == "," }) {
                throw PostgresError(.invalidConfiguration, "database URL is malformed: the port is not a number")
            }
            shown.append("\(key)=\(String(cString: value))")
        }
        self.connectionString = trimmed
        self.applicationName = applicationName
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.redacted = shown.isEmpty ? "(libpq defaults)" : shown.joined(separator: " ")
    }
}
