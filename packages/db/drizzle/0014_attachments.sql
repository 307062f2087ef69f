-- Files attached to a task (issue 35), optionally named by one of its comments. The bytes live
-- outside the database (DATA_DIR/files or an S3 bucket) under `<project_id>/<sha256>`: the same
-- bytes uploaded twice in a project are stored once, and a stored blob may be removed only when no
-- row of its project names its sha256 any more (apps/server/src/resources/attachments/blobs.ts).
-- Deleting the task or the project deletes the rows here; their blobs are removed after the commit.
CREATE TABLE "attachments" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"task_id" uuid NOT NULL,
	"comment_id" uuid,
	"filename" text NOT NULL,
	"content_type" text NOT NULL,
	"size" bigint NOT NULL,
	"sha256" text NOT NULL,
	"uploader_id" uuid,
	"thumbnail" boolean NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "attachments_sha256_check" CHECK ("sha256" ~ '^[0-9a-f]{64}$'),
	CONSTRAINT "attachments_size_check" CHECK ("size" >= 0)
);
--> statement-breakpoint
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_comment_id_comments_id_fk" FOREIGN KEY ("comment_id") REFERENCES "public"."comments"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_uploader_id_users_id_fk" FOREIGN KEY ("uploader_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- A task's attachments, oldest first.
CREATE INDEX "attachments_task_idx" ON "attachments" USING btree ("task_id","created_at","id");--> statement-breakpoint
-- Whether any row still names a blob (before removing it), and a project's deduplicated bytes in use.
CREATE INDEX "attachments_project_sha256_idx" ON "attachments" USING btree ("project_id","sha256");--> statement-breakpoint
-- A comment's attachments; almost every attachment is named by no comment.
CREATE INDEX "attachments_comment_idx" ON "attachments" USING btree ("comment_id") WHERE "attachments"."comment_id" is not null;
