import Foundation

/// A purchase's story as one list in time order, on its page: each submission, the last attempt
/// and Apple's answer, the verdict, the grant, the events it appended, their webhook deliveries,
/// Apple's notifications, refunds and revocations, and what support did — each with its time
/// (relative, the exact UTC time on hover) and a link to where it is kept.
///
/// What is kept decides what is told: a job keeps its attempt count and its last answer (Apple's
/// status, the last error, the next try), not every attempt, so a retried job reads as its
/// submission, "N attempts so far: last error …" and its verdict. One statement; every arm reads
/// one index and at most 200 rows: grants_original_idx; the jobs through their grants (jobs_pkey)
/// and jobs_unsettled_transaction_idx; notifications_original_idx; the events at the moments of
/// this purchase's verdicts, grants and applied notifications (events_created_idx — an event is
/// appended in the transaction of the change it tells, at the same now()), of its jobs or purchase
/// keys; their deliveries (deliveries_event_idx); revocations_pkey; support_audit_subject_idx.
enum ConsoleTimeline {
    static let sql = ConsoleQueries.rows("""
        WITH g AS (SELECT * FROM receiptq.grants WHERE original_transaction_id = $1 LIMIT 200),
        j AS (SELECT id, kind, state, user_id, transaction_id, product_id, attempts, apple_status, last_error, outcome_reason,
                     created_at, updated_at, run_at, finished_at, redriven_at
              FROM receiptq.jobs WHERE id IN (SELECT job_id FROM g
                                              UNION SELECT id FROM receiptq.jobs WHERE state NOT IN ('verifying', 'granted')
                                                  AND transaction_id IN (SELECT $1::text UNION SELECT transaction_id FROM g))
              LIMIT 200),
        n AS (SELECT notification_type, subtype, original_transaction_id, transaction_id, state, last_error, outcome, received_at, applied_at
              FROM receiptq.notifications WHERE original_transaction_id = $1 ORDER BY received_at LIMIT 200),
        e AS (SELECT sequence, type, created_at, job_id, user_id FROM receiptq.events
              WHERE created_at IN (SELECT finished_at FROM j UNION SELECT granted_at FROM g UNION SELECT applied_at FROM n)
                AND (job_id IN (SELECT id FROM j) OR purchase_key IN (SELECT purchase_key FROM g))
              ORDER BY sequence LIMIT 200),
        d AS (SELECT * FROM receiptq.deliveries WHERE event_sequence IN (SELECT sequence FROM e) LIMIT 200),
        r AS (SELECT * FROM receiptq.revocations WHERE transaction_id IN (SELECT transaction_id FROM g)),
        a AS (SELECT * FROM receiptq.support_audit
              WHERE subject IN (SELECT 'original_transaction:' || $1 UNION SELECT 'job:' || id FROM j) ORDER BY id LIMIT 200)
        SELECT at, ordinal, badge, what, detail, link, target FROM (
          SELECT created_at AS at, 1 AS ordinal, 'submitted' AS badge, 'Submitted (' || kind || ') by ' || user_id AS what,
                 'transaction ' || transaction_id || coalesce(', product ' || product_id, '') AS detail, 'job' AS link, id::text AS target FROM j
          UNION ALL SELECT redriven_at, 2, 'redriven', 'Re-driven by support', NULL, 'job', id::text FROM j WHERE redriven_at IS NOT NULL
          UNION ALL SELECT updated_at, 3, state, attempts || ' attempt(s) so far' || coalesce(': Apple status ' || apple_status, ''),
                 concat_ws('; ', 'last error: ' || last_error, 'next try ' || to_char(run_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"')),
                 'job', id::text FROM j WHERE finished_at IS NULL AND (attempts > 0 OR last_error IS NOT NULL)
          UNION ALL SELECT finished_at, 4, state, 'Verdict: ' || state || ' after ' || attempts || ' attempt(s)'
                 || coalesce(', Apple status ' || apple_status, ''), coalesce(outcome_reason, last_error), 'job', id::text
                 FROM j WHERE finished_at IS NOT NULL
          UNION ALL SELECT granted_at, 5, 'granted', 'Granted ' || product_id || ' to ' || user_id,
                 concat_ws('; ', 'transaction ' || transaction_id, 'by hand: ' || manual_by), 'customer', user_id FROM g
          UNION ALL SELECT created_at, 6, 'event', 'Event ' || type || ' #' || sequence, NULL, 'job', job_id::text FROM e
          UNION ALL SELECT created_at, 7, CASE WHEN state = 'delivered' THEN 'queued' ELSE state END, 'Queued webhook to ' || endpoint_id || ' (event #' || event_sequence || ')',
                 concat_ws('; ', attempts || ' attempt(s)', 'HTTP ' || last_status, last_error), 'customer', user_id FROM d
          UNION ALL SELECT delivered_at, 8, 'delivered', 'Delivered to ' || endpoint_id || ' (event #' || event_sequence || ')',
                 'HTTP ' || last_status, 'customer', user_id FROM d WHERE delivered_at IS NOT NULL
          UNION ALL SELECT received_at, 9, state, 'Apple sent ' || notification_type || coalesce(' / ' || subtype, ''),
                 concat_ws('; ', 'transaction ' || transaction_id, 'last error: ' || last_error), 'purchase', original_transaction_id FROM n
          UNION ALL SELECT applied_at, 10, 'applied', 'Applied ' || notification_type || coalesce(' / ' || subtype, ''), outcome,
                 'purchase', original_transaction_id FROM n WHERE applied_at IS NOT NULL
          UNION ALL SELECT coalesce(revoked_at, signed_at), 11, 'revoked', initcap(reason) || ' of transaction ' || transaction_id,
                 concat_ws('; ', 'Apple''s reason ' || revocation_reason, 'from ' || source), 'purchase', original_transaction_id FROM r
          UNION ALL SELECT reinstated_at, 12, 'reinstated', 'Reinstated transaction ' || transaction_id, NULL, 'purchase', original_transaction_id
                 FROM r WHERE reinstated_at IS NOT NULL
          UNION ALL SELECT revoked_at, 13, 'revoked', 'Grant revoked: ' || product_id, revocation_reason::text, 'customer', user_id
                 FROM g WHERE revoked_at IS NOT NULL
          UNION ALL SELECT at, 14, 'support', actor || ': ' || action, why, 'subject', subject FROM a
        ) t WHERE at IS NOT NULL ORDER BY at, ordinal
        """)
}

extension ConsoleHTML {
    /// The timeline's rows as an ordered list: time, a badge (a delivery's queueing reads `queued`
    /// when its delivery follows), what happened, the detail, a link.
    static func timeline(_ rows: [[String: Any]], now: Date) -> String {
        guard !rows.isEmpty else { return "<p class=\"empty\">nothing kept for this purchase</p>" }
        let links: [String: ConsoleLink] = ["job": .job, "customer": .customer, "purchase": .purchase, "subject": .subject]
        var html = "<ol class=\"timeline\" id=\"timeline\">"
        for row in rows {
            let target = text(row["target"])
            let href = links[text(row["link"])].flatMap { $0.href(target) }
            let detail = text(row["detail"])
            html += "<li><span class=\"when\">\(cell(row["at"], .time, now: now))</span> \(badge(text(row["badge"]))) "
                + "<span class=\"what\">\(escape(text(row["what"])))</span>"
                + (detail.isEmpty ? "" : " <span class=\"detail\">— \(escape(detail))</span>")
                + (href.map { " <a href=\"\(escape($0))\">\(escape(text(row["link"]) == "job" ? "job " + target : target))</a>" } ?? "") + "</li>"
        }
        return html + "</ol>"
    }
}
