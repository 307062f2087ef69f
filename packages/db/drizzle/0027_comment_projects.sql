-- Search (issue 37): a comment carries its task's project, so a search reaches the reader's
-- comments through their projects' index entries rather than through each of their tasks (at 1 M
-- tasks that was 40 000 index look-ups for a reader of 20 projects, most of every search's time).
-- A task never changes project, so the copy cannot go stale; the comment goes with its task, and
-- with its project, which cascades to it either way.
ALTER TABLE "comments" ADD COLUMN "project_id" uuid;--> statement-breakpoint
UPDATE "comments" AS c SET "project_id" = t."project_id" FROM "tasks" AS t WHERE t."id" = c."task_id";--> statement-breakpoint
ALTER TABLE "comments" ALTER COLUMN "project_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE cascade;--> statement-breakpoint
CREATE INDEX "comments_project_idx" ON "comments" USING btree ("project_id");--> statement-breakpoint
ANALYZE "comments";
