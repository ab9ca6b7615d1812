/// Whom a transaction Apple reports by itself — a notification's, a history page's — is due to,
/// by the rule `LedgerDecision` applies when its job is granted: the user of a pending order its
/// Apple-signed appAccountToken names (a purchase or upgrade made from that account); else the
/// original transaction's owner (`receiptq.owners`); else the user of any order the token names;
/// else, for a history sync an operator vouched for, that user. The job is queued for that user,
/// so a renewal reaches the owner — never the account that submitted last, and after support's
/// transfer never the account the renewal's repeated token first named.
enum PurchaseOwner {
    /// `$1` the original transaction id, `$2` Apple's appAccountToken (uuid text or NULL), and
    /// with `vouched`, `$3` the user an operator named (text or NULL). Selects `user_id` and the
    /// `order_id` the token names (a hint for the job), at most one row.
    static func sql(vouched: Bool = false) -> String {
        """
        SELECT owner.user_id, owner.order_id FROM (
            (SELECT o.user_id, o.order_id, 1 AS rank FROM receiptq.orders o
             WHERE $2::uuid IS NOT NULL AND o.app_account_token = $2::uuid AND o.state = 'pending')   -- orders_app_account_token_idx
            UNION ALL
            (SELECT w.user_id, NULL::text, 2 FROM receiptq.owners w WHERE w.original_transaction_id = $1)   -- owners_pkey
            UNION ALL
            (SELECT o.user_id, o.order_id, 3 FROM receiptq.orders o
             WHERE $2::uuid IS NOT NULL AND o.app_account_token = $2::uuid)                        -- orders_app_account_token_idx
        \(vouched ? "    UNION ALL\n    (SELECT $3::text, NULL::text, 4 WHERE $3::text IS NOT NULL)" : "")
        ) AS owner
        ORDER BY owner.rank
        LIMIT 1
        """
    }
}
