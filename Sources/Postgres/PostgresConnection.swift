import CLibPQ
import Foundation

/// One libpq connection. Every call blocks its thread, so a connection lives on a thread of its
/// own (see `PostgresPool`, `PostgresListener`) and is never touched from Swift's cooperative
/// pool or a NIO event loop. Not `Sendable`: exactly one thread owns it.
public final class PostgresConnection {
    let handle: OpaquePointer
    /// Statements prepared on this session (parameter types and SQL text → statement name); see
    /// `query(prepared:_:)`.
    var preparedStatements: [String: String] = [:]

    /// Connects (blocking, at most `connectTimeoutSeconds`) and prepares the session:
    /// `TimeZone=UTC` and `DateStyle=ISO`, which `Date` decoding relies on.
    public init(configuration: PostgresConfiguration) throws {
        // Our defaults come first so the same keys inside the connection string win
        // (expand_dbname=1 expands the URI/conninfo given as "dbname").
        // Only the first "dbname" is expanded; a second one is a plain database name.
        var keywords = ["connect_timeout", "application_name", "fallback_application_name", "dbname"]
        var values = [String(configuration.connectTimeoutSeconds), configuration.applicationName,
                      configuration.applicationName, configuration.connectionString]
        if let database = configuration.databaseOverride {
            keywords.append("dbname")
            values.append(database)
        }
        if let user = configuration.userOverride {
            keywords.append("user")
            values.append(user)
        }
        let connection = withCStrings(keywords) { keywordPointers in
            withCStrings(values) { valuePointers in
                PQconnectdbParams(keywordPointers, valuePointers, 1)
            }
        }
        guard let connection else {
            throw PostgresError(.connection, "could not allocate a libpq connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgresError(.connection, "could not connect to PostgreSQL: \(message)")
        }
        self.handle = connection
        PQsetNoticeProcessor(connection, { _, _ in }, nil)  // NOTICEs ("already exists, skipping") are not errors
        try execute(script: "SET TimeZone = 'UTC'; SET DateStyle = 'ISO'")
    }

    deinit { PQfinish(handle) }

    /// False once the server went away or the socket broke; such a connection is discarded.
    public var isHealthy: Bool { PQstatus(handle) == CONNECTION_OK }

    /// The server process serving this connection (`pg_backend_pid()`).
    public var backendPID: Int32 { PQbackendPID(handle) }

    /// The socket, for `poll` in the LISTEN loop.
    var socket: Int32 { PQsocket(handle) }

    /// Runs one statement with parameters (`PQexecParams`; arrays of strings in binary, the rest
    /// as text: `PostgresParameters`). Values never enter the SQL text. `nil` parameters are SQL NULL.
    @discardableResult
    public func query(_ sql: String, _ parameters: [(any PostgresEncodable)?] = []) throws -> PostgresRows {
        let encoded = PostgresParameters(parameters)
        let result = encoded.withPointers { values, lengths, formats, types in
            PQexecParams(handle, sql, encoded.count, types, values, lengths, formats, 0)
        }
        return try consume(result)
    }

    /// Runs a script of one or more statements without parameters (`PQexec`): migrations,
    /// session settings. Never pass user input here.
    public func execute(script: String) throws {
        _ = try consume(PQexec(handle, script))
    }

    /// Runs `body` inside BEGIN … COMMIT; any thrown error rolls back and is rethrown.
    @discardableResult
    public func transaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try execute(script: "BEGIN")
        do {
            let value = try body(self)
            try execute(script: "COMMIT")
            return value
        } catch {
            if isHealthy { _ = try? execute(script: "ROLLBACK") }
            throw error
        }
    }

    /// Reads whatever arrived on the socket and returns pending notifications. Throws
    /// `.connection` when the connection is gone.
    func consumeNotifications() throws -> [PostgresNotification] {
        guard PQconsumeInput(handle) == 1 else {
            throw PostgresError(.connection, "connection lost: \(String(cString: PQerrorMessage(handle)))")
        }
        var notifications: [PostgresNotification] = []
        while let notify = PQnotifies(handle) {
            notifications.append(PostgresNotification(
                channel: String(cString: notify.pointee.relname),
                payload: String(cString: notify.pointee.extra),
                senderPID: notify.pointee.be_pid))
            PQfreemem(notify)
        }
        return notifications
    }

    func consume(_ result: OpaquePointer?) throws -> PostgresRows {
        guard let result else {
            throw PostgresError(.connection, "query failed: \(String(cString: PQerrorMessage(handle)))")
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            return PostgresRows(columns: [], values: [], affectedRows: affectedRows(result))
        case PGRES_TUPLES_OK:
            let rowCount = Int(PQntuples(result))
            let columnCount = Int(PQnfields(result))
            let columns = (0..<columnCount).map { String(cString: PQfname(result, Int32($0))) }
            var values: [[String?]] = []
            values.reserveCapacity(rowCount)
            for row in 0..<Int32(rowCount) {
                var rowValues: [String?] = []
                rowValues.reserveCapacity(columnCount)
                for column in 0..<Int32(columnCount) {
                    if PQgetisnull(result, row, column) == 1 {
                        rowValues.append(nil)
                    } else {
                        rowValues.append(String(cString: PQgetvalue(result, row, column)))
                    }
                }
                values.append(rowValues)
            }
            return PostgresRows(columns: columns, values: values, affectedRows: rowCount)
        default:
            throw error(from: result)
        }
    }

    private func affectedRows(_ result: OpaquePointer) -> Int {
        Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    private func error(from result: OpaquePointer) -> PostgresError {
        // PG_DIAG_* are macros Swift does not import; their values are the field codes.
        func field(_ code: Character) -> String? {
            guard let value = PQresultErrorField(result, Int32(code.asciiValue!)) else { return nil }
            return String(cString: value)
        }
        let sqlState = field("C")
        let message = field("M") ?? String(cString: PQresultErrorMessage(result))
        let kind: PostgresError.Kind = (sqlState == nil && !isHealthy) ? .connection : .server
        return PostgresError(kind, message, sqlState: sqlState, detail: field("D"), hint: field("H"))
    }
}

/// One NOTIFY as received by a listening connection.
public struct PostgresNotification: Sendable, Equatable {
    public var channel: String
    public var payload: String
    public var senderPID: Int32
}

/// Lends `body` a C array of C strings valid for the duration of the call.
func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    withOptionalCStrings(strings.map { Optional($0) }) { body($0 + [nil]) }
}

func withOptionalCStrings<R>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let copies: [UnsafeMutablePointer<CChar>?] = strings.map { $0.flatMap { strdup($0) } }
    defer { copies.forEach { free($0) } }
    return body(copies.map { UnsafePointer($0) })
}
