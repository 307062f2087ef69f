CREATE TABLE "labels" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"name" text NOT NULL,
	"color" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "label_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "comment_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "labels" ADD CONSTRAINT "labels_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "labels_project_name_key" ON "labels" USING btree ("project_id",lower("name"));--> statement-breakpoint
CREATE INDEX "tasks_label_ids_idx" ON "tasks" USING gin ("label_ids");--> statement-breakpoint
-- A task's comment_count, kept in the transaction that adds or deletes the comment. BEFORE the
-- row is written, so the task's row is locked before anything else the statement locks: a comment
-- is created in one statement that also takes the project's advisory lock (recordChange, class
-- 7415), and every writer of a task takes the task's row first and that lock second; an AFTER
-- trigger would run at the end of that statement, after the advisory lock, and could deadlock
-- with a task update. The count is no version of the task: updated_at stays as it is. Comments
-- deleted with their task (ON DELETE CASCADE) find no task row left to update.
CREATE FUNCTION tasklane_count_comments() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE tasks SET comment_count = comment_count + 1 WHERE id = NEW.task_id;
    RETURN NEW;
  END IF;
  UPDATE tasks SET comment_count = comment_count - 1 WHERE id = OLD.task_id;
  RETURN OLD;
END
$$;
--> statement-breakpoint
CREATE TRIGGER comments_counted BEFORE INSERT OR DELETE ON comments
  FOR EACH ROW EXECUTE FUNCTION tasklane_count_comments();
--> statement-breakpoint
UPDATE tasks SET comment_count = counted.count
  FROM (SELECT task_id, count(*)::int AS count FROM comments GROUP BY task_id) AS counted
  WHERE tasks.id = counted.task_id;
