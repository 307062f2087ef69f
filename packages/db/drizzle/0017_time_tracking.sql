-- Estimates and time spent (issue 36). A task's estimate is a number ≥ 0 in its project's unit
-- (points or hours, a project setting); time is logged as entries of whole minutes (1–1 440) on a
-- UTC date, by hand or by stopping a timer.
ALTER TABLE "tasks" ADD COLUMN "estimate" numeric CHECK ("estimate" >= 0);--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "estimate_unit" text DEFAULT 'points' NOT NULL CHECK ("estimate_unit" IN ('points', 'hours'));--> statement-breakpoint
CREATE TABLE "time_entries" (
  "id" uuid PRIMARY KEY NOT NULL,
  "task_id" uuid NOT NULL REFERENCES "tasks"("id") ON DELETE CASCADE,
  "user_id" uuid NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
  "minutes" integer NOT NULL CHECK ("minutes" BETWEEN 1 AND 1440),
  "date" date NOT NULL,
  "note" text DEFAULT '' NOT NULL,
  "created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
  "updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
-- A task's entries (its list, and timeSpentMinutes on every task read: an index-only sum).
CREATE INDEX "time_entries_task_idx" ON "time_entries" USING btree ("task_id","created_at","id","minutes");--> statement-breakpoint
-- A project's report goes through its tasks to their entries in a date range.
CREATE INDEX "time_entries_task_date_idx" ON "time_entries" USING btree ("task_id","date");--> statement-breakpoint
-- At most one running timer per user: the user is the key, so starting a second one replaces the first.
CREATE TABLE "timers" (
  "user_id" uuid PRIMARY KEY NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
  "task_id" uuid NOT NULL REFERENCES "tasks"("id") ON DELETE CASCADE,
  "started_at" timestamp (3) with time zone NOT NULL
);--> statement-breakpoint
CREATE INDEX "timers_task_idx" ON "timers" USING btree ("task_id");--> statement-breakpoint
ANALYZE "tasks";--> statement-breakpoint
ANALYZE "projects";--> statement-breakpoint
ANALYZE "time_entries";--> statement-breakpoint
ANALYZE "timers";
