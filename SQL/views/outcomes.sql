-- receiptq.outcomes: this view's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.

CREATE OR REPLACE VIEW receiptq.outcomes AS
 SELECT s.state,
    count(j.finished_at) FILTER (WHERE (j.finished_at > (now() - '00:01:00'::interval))) AS last_minute,
    count(j.finished_at) AS last_hour
   FROM (( VALUES ('granted'::text), ('already_granted'::text), ('rejected'::text), ('failed'::text), ('resubmit'::text), ('owned_elsewhere'::text)) s(state)
     LEFT JOIN receiptq.jobs j ON (((j.state = s.state) AND (j.finished_at > (now() - '01:00:00'::interval)) AND (j.state = ANY (ARRAY['granted'::text, 'already_granted'::text, 'rejected'::text, 'failed'::text, 'resubmit'::text, 'owned_elsewhere'::text])))))
  GROUP BY s.state;

COMMENT ON VIEW receiptq.outcomes IS 'Jobs that reached each terminal state in the last minute and the last hour.';

GRANT SELECT ON TABLE receiptq.outcomes TO receiptq_scheduler;
GRANT SELECT ON TABLE receiptq.outcomes TO receiptq_readonly;
