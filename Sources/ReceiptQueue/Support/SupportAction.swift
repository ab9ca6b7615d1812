/// Who does a support write, and why: every write carries both into its audit row
/// (`receiptq.support_audit`). `actor` is the operator's credential name (the console's or the
/// admin API's login, or `--operator` of `receiptq support`), never a token.
public struct SupportAction: Sendable, Hashable {
    public let actor: String
    public let why: String

    /// - Throws: `SupportError.invalid` naming the field when either is empty or too long.
    public init(actor: String, why: String) throws(SupportError) {
        let actor = actor.trimmingWhitespace, why = why.trimmingWhitespace
        guard (1...200).contains(actor.count) else { throw SupportError(.invalid, "the operator's name has 1 to 200 characters") }
        guard (1...1000).contains(why.count) else { throw SupportError(.invalid, "say why (1 to 1000 characters): it goes in the audit log") }
        self.actor = actor
        self.why = why
    }
}

extension String {
    var trimmingWhitespace: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
