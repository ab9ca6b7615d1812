import ReceiptQueue

/// The release this binary is — the one place its number is written. `--version` prints it,
/// `/readyz` and `receiptq_build_info` report it, the container image's label is checked against
/// it (Deploy/validate), and docs/CHANGELOG.md has a section of its name (docs/releasing.md).
public enum ReceiptQueueVersion {
    public static let current = "0.11.0"

    /// The newest migration this binary carries: the schema version it installs and expects.
    public static var schema: Int {
        ((try? EmbeddedSQL.migrations()) ?? []).filter { $0.kind == .versioned }.map(\.version).max() ?? 0
    }

    /// What `/readyz` shows of the build, beside the process's own facts.
    public static var facts: [String: String] { ["version": current, "schema": String(schema)] }
}
