-- receiptq.webhook_health: this view's current definition, its comment and its privileges — the one
-- place to change it. `receiptq migrate` re-applies this file whenever it changes (after every
-- numbered migration). CREATE OR REPLACE only: a change PostgreSQL cannot make in place (another
-- return type, a dropped column) needs a numbered migration that drops it first.

CREATE OR REPLACE VIEW receiptq.webhook_health AS
 SELECT e.id AS endpoint_id,
    e.url,
    e.enabled,
    ( SELECT count(*) AS count
           FROM receiptq.deliveries d
          WHERE ((d.endpoint_id = e.id) AND (d.state = ANY (ARRAY['queued'::text, 'delivering'::text])))) AS pending,
    ( SELECT min(d.created_at) AS min
           FROM receiptq.deliveries d
          WHERE ((d.endpoint_id = e.id) AND (d.state = ANY (ARRAY['queued'::text, 'delivering'::text])))) AS oldest_pending_since,
    ( SELECT count(*) AS count
           FROM receiptq.deliveries d
          WHERE ((d.endpoint_id = e.id) AND (d.state = 'failed'::text))) AS failed,
    ( SELECT max(d.delivered_at) AS max
           FROM receiptq.deliveries d
          WHERE ((d.endpoint_id = e.id) AND (d.state = 'delivered'::text) AND (d.delivered_at > (now() - '01:00:00'::interval)))) AS last_delivered_at
   FROM receiptq.webhook_endpoints e;

COMMENT ON VIEW receiptq.webhook_health IS 'Per webhook endpoint: deliveries pending (and since when), failed, last delivered in the last hour.';

GRANT SELECT ON TABLE receiptq.webhook_health TO receiptq_scheduler;
GRANT SELECT ON TABLE receiptq.webhook_health TO receiptq_readonly;


--
-- PostgreSQL database dump complete
--
