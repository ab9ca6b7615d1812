/// The one rule from a flag to its environment variable: `RECEIPTQ_` and the flag's long name in
/// capitals with `-` as `_` (`--max-attempts` → `RECEIPTQ_MAX_ATTEMPTS`). A variable means the
/// same in every command that has the flag, so one env file or ConfigMap configures every process.
/// Names that existed before the rule keep working as aliases (the rule's name wins when both
/// are set); the generated reference lists them.
public enum OptionVariable {
    public static let prefix = "RECEIPTQ_"

    public static func name(for flag: String) -> String {
        prefix + flag.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// Older names of rule-derived variables, read when the rule's name is unset.
    public static let aliases: [String: [String]] = [
        "RECEIPTQ_CONCURRENCY": ["RECEIPTQ_WORKER_CONCURRENCY"],
        "RECEIPTQ_HOST": ["RECEIPTQ_API_HOST"],
        "RECEIPTQ_PORT": ["RECEIPTQ_API_PORT"],
        "RECEIPTQ_MIGRATIONS": ["RECEIPTQ_MIGRATIONS_DIR"],
        "RECEIPTQ_SIGNED_DATA_ROOT": ["RECEIPTQ_SIGNED_DATA_ROOTS"],
    ]

    /// Variables a command reads itself for an option, beside the rule's: secrets that may be
    /// handed over as a value or a file rather than a path.
    public static let alsoRead: [String: String] = [
        "database-url": "DATABASE_URL, DATABASE_URL_FILE",
        "tokens-file": "RECEIPTQ_API_TOKENS, RECEIPTQ_API_TOKENS_FILE (the digests themselves)",
        "secret-file": "RECEIPTQ_WEBHOOK_SECRETS, RECEIPTQ_WEBHOOK_SECRETS_FILE (the secrets themselves)",
    ]

    /// The variables that set `flag`, the rule's first.
    public static func names(for flag: String) -> [String] {
        let name = name(for: flag)
        return [name] + (aliases[name] ?? [])
    }
}
