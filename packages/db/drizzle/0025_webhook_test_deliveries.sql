-- A test delivery (POST /projects/{id}/webhooks/{webhookId}/test) has no event behind it: its
-- event_id is null. The unique (webhook_id, event_id) index still keeps one delivery per event,
-- and lets a webhook have any number of test deliveries (nulls are distinct).
ALTER TABLE "webhook_deliveries" ALTER COLUMN "event_id" DROP NOT NULL;
