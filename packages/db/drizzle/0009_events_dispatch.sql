-- The event dispatcher marks each activity row once it has written the work derived from it
-- (notifications, watchers, webhook deliveries), in the same transaction. Rows written before this
-- migration had that work written with them: a constant default marks them all at once (no table
-- rewrite), and is dropped so that every new row starts undispatched.
ALTER TABLE "activity" ADD COLUMN "dispatched_at" timestamp (3) with time zone DEFAULT '2000-01-01T00:00:00Z';--> statement-breakpoint
ALTER TABLE "activity" ALTER COLUMN "dispatched_at" DROP DEFAULT;--> statement-breakpoint
CREATE INDEX "activity_undispatched_idx" ON "activity" USING btree ("id") WHERE "activity"."dispatched_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_event_key" ON "webhook_deliveries" USING btree ("webhook_id","event_id");
--> statement-breakpoint
-- Set by a project's deletion, with project_id's null: the dispatcher still finds the webhooks of
-- a deleted project for its events dispatched after the deletion (project.deleted among them).
ALTER TABLE "webhooks" ADD COLUMN "former_project_id" uuid;