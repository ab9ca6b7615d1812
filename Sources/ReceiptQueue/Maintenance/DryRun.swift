import Postgres

/// Runs an operator's statement in a transaction that is rolled back: what it would move, by the
/// very statement that moves it (`--dry-run`), so the preview cannot disagree with the change.
public enum DryRun {
    private struct RolledBack<T: Sendable>: Error {
        var value: T
    }

    /// `body`'s result; nothing it wrote is kept.
    public static func run<T: Sendable>(on connection: PostgresConnection, _ body: (PostgresConnection) throws -> T) throws -> T {
        do {
            _ = try connection.transaction { connection -> T in throw RolledBack(value: try body(connection)) }
            fatalError("unreachable: the transaction always throws")
        } catch let rolledBack as RolledBack<T> {
            return rolledBack.value
        }
    }
}
