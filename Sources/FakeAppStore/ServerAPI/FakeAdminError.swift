/// Why an admin request (or its Swift equivalent) was refused: a clear 4xx for bad input, never a
/// crash. `status` is the HTTP status the admin API answers with.
public struct FakeAdminError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    public var message: String

    public init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }

    static func badRequest(_ message: String) -> FakeAdminError { FakeAdminError(400, message) }
    static func notFound(_ message: String) -> FakeAdminError { FakeAdminError(404, message) }

    public var description: String { "fake admin: \(message) (HTTP \(status))" }
}
