-- Imports (issue 38): an uploaded file's job (any instance, after a restart too); the file itself
-- waits in the blob store (imports/<id>) until the job ends.
CREATE TABLE "imports" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL REFERENCES "users"("id") ON DELETE cascade,
	"source" text NOT NULL,
	"status" text NOT NULL CONSTRAINT "imports_status_check" CHECK ("status" in ('pending', 'running', 'succeeded', 'failed')),
	"mapping" jsonb,
	"progress_done" integer DEFAULT 0 NOT NULL,
	"progress_total" integer DEFAULT 0 NOT NULL,
	"counts" jsonb,
	"warnings" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"project_id" uuid REFERENCES "projects"("id") ON DELETE set null,
	"error" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"locked_until" timestamp (3) with time zone,
	"finished_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "imports_pending_idx" ON "imports" USING btree ("created_at") WHERE "status" in ('pending', 'running');
