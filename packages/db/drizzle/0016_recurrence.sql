-- Recurring tasks (issue 36): a task's RFC 5545 RRULE value (resources/tasks/recurrence.ts checks
-- and steps it with the `rrule` package), and, on the occurrence a completion made, the task it
-- came from. No foreign key: the id keeps naming the task it came from after that one's deletion,
-- and a task's deletion takes no lock on its occurrences.
ALTER TABLE "tasks" ADD COLUMN "recurrence" text;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "recurred_from_id" uuid;--> statement-breakpoint
-- A task makes at most ONE next occurrence: however often it is reopened and completed again, by
-- however many instances, or a retry, a second insertion naming it fails (the service inserts ON
-- CONFLICT DO NOTHING and records no event then). Partial: the many tasks that came from none.
CREATE UNIQUE INDEX "tasks_recurred_from_key" ON "tasks" USING btree ("recurred_from_id") WHERE "recurred_from_id" IS NOT NULL;--> statement-breakpoint
ANALYZE "tasks";
