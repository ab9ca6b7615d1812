import Foundation
import Postgres

/// Revenue at a glance (`/console/revenue`), from the ledger alone: subscriptions (each auto-renewable
/// subscription's latest state) and grants (each transaction as Apple signed it, with its price in
/// milliunits and currency). One environment at a time, Production unless asked.
///
/// MRR: each active subscription's current period (its latest purchased, auto-renewable grant) at
/// the price Apple reported for that transaction, normalised to a month by the period's length
/// (expires − purchase): up to 10 days a week (× 52 / 12), up to 45 days a month, up to 75 two
/// months (÷ 2), up to 120 three (÷ 3), up to 200 six (÷ 6), up to 400 a year (÷ 12). A period
/// with no price, no currency, no dates or another length is "price unknown": counted, never priced.
enum ConsoleRevenue {
    static let environments = ["Production", "Sandbox"]

    /// Active (or in a grace period: still entitled) subscriptions and their MRR, by product and currency.
    static let mrr = ConsoleQueries.rows("""
        WITH a AS (
            SELECT s.product_id, g.price, g.currency, extract(epoch FROM g.expires_date - g.purchase_date) / 86400 AS days
            FROM receiptq.subscriptions s
            LEFT JOIN LATERAL (
                SELECT price, currency, purchase_date, expires_date FROM receiptq.grants g
                WHERE g.original_transaction_id = s.original_transaction_id AND g.product_type = 'auto_renewable'
                  AND g.ownership_type = 'PURCHASED' AND g.environment = s.environment
                ORDER BY g.purchase_date DESC NULLS LAST LIMIT 1
            ) g ON true
            WHERE s.environment = $1 AND s.state IN ('active', 'grace_period')
        ),
        m AS (
            SELECT product_id, currency, price,
                   CASE WHEN price IS NULL OR currency IS NULL OR days IS NULL OR days <= 0 THEN NULL
                        WHEN days <= 10 THEN price * 52.0 / 12 WHEN days <= 45 THEN price::numeric
                        WHEN days <= 75 THEN price / 2.0 WHEN days <= 120 THEN price / 3.0
                        WHEN days <= 200 THEN price / 6.0 WHEN days <= 400 THEN price / 12.0 END AS monthly
            FROM a
        )
        SELECT * FROM (
        SELECT coalesce(product_id, '(unknown product)') AS product_id, CASE WHEN monthly IS NULL THEN 'price unknown' ELSE currency END AS currency,
               count(*) AS subscriptions, count(*) FILTER (WHERE monthly = 0) AS at_zero,
               CASE WHEN count(monthly) = 0 THEN NULL ELSE to_char(sum(monthly) / 1000, 'FM999,999,999,990.00') END AS mrr
        FROM m GROUP BY 1, 2
        ) r ORDER BY currency = 'price unknown', currency, product_id
        """)

    /// Subscriptions by state (active, grace period, billing retry, expired, revoked).
    static let states = ConsoleQueries.rows("""
        SELECT count(*) FILTER (WHERE state IN ('active', 'grace_period')) AS active,
               count(*) FILTER (WHERE state = 'grace_period') AS grace_period,
               count(*) FILTER (WHERE state = 'billing_retry') AS billing_retry,
               count(*) FILTER (WHERE state = 'expired') AS expired,
               count(*) FILTER (WHERE state = 'revoked') AS revoked
        FROM receiptq.subscriptions WHERE environment = $1
        """)

    /// The last 30 days (UTC), today last: first periods bought, later periods bought (renewals and
    /// plan changes), subscriptions whose latest state is expired with their period ending that day,
    /// and grants of any product refunded or revoked that day.
    static let days = ConsoleQueries.rows("""
        WITH d AS (
            SELECT day::date AS day FROM generate_series((now() AT TIME ZONE 'UTC')::date - 29, (now() AT TIME ZONE 'UTC')::date, interval '1 day') day
        ),
        g AS (
            SELECT (purchase_date AT TIME ZONE 'UTC')::date AS day,
                   count(DISTINCT original_transaction_id) FILTER (WHERE transaction_id = original_transaction_id) AS new,
                   count(DISTINCT transaction_id) FILTER (WHERE transaction_id <> original_transaction_id) AS renewed
            FROM receiptq.grants
            WHERE environment = $1 AND product_type = 'auto_renewable' AND ownership_type = 'PURCHASED'
              AND purchase_date >= ((SELECT min(day) FROM d)::timestamp AT TIME ZONE 'UTC')
            GROUP BY 1
        ),
        c AS (
            SELECT (expires_date AT TIME ZONE 'UTC')::date AS day, count(*) AS churned FROM receiptq.subscriptions
            WHERE environment = $1 AND state = 'expired' AND expires_date >= ((SELECT min(day) FROM d)::timestamp AT TIME ZONE 'UTC')
            GROUP BY 1
        ),
        r AS (
            SELECT (revoked_at AT TIME ZONE 'UTC')::date AS day, count(DISTINCT purchase_key) AS refunded FROM receiptq.grants
            WHERE environment = $1 AND ownership_type = 'PURCHASED' AND revoked_at >= ((SELECT min(day) FROM d)::timestamp AT TIME ZONE 'UTC')
            GROUP BY 1
        )
        SELECT to_char(d.day, 'YYYY-MM-DD') AS day, coalesce(g.new, 0) AS new, coalesce(g.renewed, 0) AS renewed,
               coalesce(c.churned, 0) AS churned, coalesce(r.refunded, 0) AS refunded
        FROM d LEFT JOIN g USING (day) LEFT JOIN c USING (day) LEFT JOIN r USING (day) ORDER BY d.day
        """)

    /// Free trials started in the last 30 days — a first period Apple reported at price 0 — and what
    /// became of them: a later period at a price above 0 (converted), still inside the trial, or
    /// ended without a paid period.
    static let trials = ConsoleQueries.rows("""
        SELECT count(*) AS started, count(*) FILTER (WHERE paid) AS converted,
               count(*) FILTER (WHERE NOT paid AND expires_date > now()) AS in_trial,
               count(*) FILTER (WHERE NOT paid AND (expires_date IS NULL OR expires_date <= now())) AS lapsed
        FROM (
            SELECT DISTINCT ON (f.original_transaction_id) f.expires_date,
                   EXISTS (SELECT 1 FROM receiptq.grants p WHERE p.original_transaction_id = f.original_transaction_id
                           AND p.transaction_id <> f.transaction_id AND p.price > 0) AS paid
            FROM receiptq.grants f
            WHERE f.environment = $1 AND f.product_type = 'auto_renewable' AND f.ownership_type = 'PURCHASED'
              AND f.transaction_id = f.original_transaction_id AND f.price = 0 AND f.purchase_date >= now() - interval '30 days'
        ) t
        """)

    typealias C = ConsoleColumn
    static let mrrColumns = [
        C("product_id", "Product", .code), C("currency", "Currency", .code), C("subscriptions", "Active subscriptions", .number),
        C("at_zero", "At price 0", .number, help: "in a free trial or a free offer period: counted in MRR as 0"),
        C("mrr", "MRR", .code, help: "the sum of each subscription's period price normalised to a month, in this currency"),
    ]
    static let stateColumns = [
        C("active", "Active", .number, help: "active or in a billing grace period (still entitled)"),
        C("grace_period", "In grace period", .number), C("billing_retry", "Billing retry", .number, help: "not entitled, Apple still retrying"),
        C("expired", "Expired", .number), C("revoked", "Revoked", .number),
    ]
    static let dayColumns = [
        C("day", "Day (UTC)", .code), C("new", "New", .number, help: "first periods bought"),
        C("renewed", "Renewed", .number, help: "later periods bought: renewals, and upgrades or crossgrades"),
        C("churned", "Churned", .number, help: "subscriptions now expired whose last period ended that day"),
        C("refunded", "Refunded", .number, help: "purchases of any product refunded or revoked by Apple that day"),
    ]
    static let trialColumns = [
        C("started", "Trials started (30 days)", .number), C("converted", "Converted to paid", .number),
        C("in_trial", "Still in trial", .number), C("lapsed", "Ended without paying", .number),
    ]

    static let caveats = """
        <div class="caveats"><p><strong>What these figures are.</strong> Prices are as Apple reported them in each signed transaction, \
        in the customer's own currency: no exchange rates, so amounts in different currencies are never added together; \
        no taxes taken out, no Apple commission, no proceeds. \
        MRR normalises each active subscription's current period price to a month by the period's length \
        (a week × 52 ÷ 12, a month as it is, 2, 3 or 6 months divided by 2, 3 or 6, a year ÷ 12). \
        A subscription whose current period has no price, no currency or a length the ledger cannot place is counted as \
        <em>price unknown</em>, never given a price. A trial is a first period Apple reported at price 0 (the ledger does not keep \
        the offer's payment mode, so a free offer code counts too). Family-shared access is not revenue and is left out. \
        The ledger knows only what reached this server: purchases never submitted and notifications never received are missing.</p>\
        <p>Sandbox subscriptions renew in minutes, so their periods fall outside the lengths above and read as price unknown.</p></div>
        """
}
