-- The `q` search's trigram indexes move off `tasks` to a table of their own, which triggers keep in
-- the writing transaction. A status change rewrites the task row under all of its indexes (`status`
-- and `updated_at` are indexed, so it cannot be a HOT update), and the two GIN trigram indexes were
-- about a fifth of its database time; now only a change of the text itself writes them. No foreign
-- key: its check would cost every create a lookup of the row it has just inserted; the trigger
-- deletes a task's text with the task, also when the task goes with its project.
-- Writes to tasks wait from the copy until the triggers exist, so none is missed; reads go on until
-- the old indexes are dropped, last, just before the commit.
LOCK TABLE "tasks" IN SHARE ROW EXCLUSIVE MODE;--> statement-breakpoint
CREATE TABLE "task_texts" (
	"task_id" uuid PRIMARY KEY NOT NULL,
	"title" text NOT NULL,
	"description" text NOT NULL
);
--> statement-breakpoint
INSERT INTO "task_texts" ("task_id", "title", "description") SELECT "id", "title", "description" FROM "tasks";--> statement-breakpoint
CREATE INDEX "task_texts_title_trgm_idx" ON "task_texts" USING gin ("title" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "task_texts_description_trgm_idx" ON "task_texts" USING gin ("description" gin_trgm_ops);--> statement-breakpoint
-- Statistics now, not at autovacuum's next pass: without them the planner guesses a search's
-- selectivity and may scan a whole project in sort order for a word that is in no task.
ANALYZE "task_texts";--> statement-breakpoint
CREATE FUNCTION tasklane_copy_task_texts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO task_texts (task_id, title, description) VALUES (NEW.id, NEW.title, NEW.description);
  ELSIF TG_OP = 'UPDATE' THEN
    UPDATE task_texts SET title = NEW.title, description = NEW.description WHERE task_id = NEW.id;
  ELSE
    DELETE FROM task_texts WHERE task_id = OLD.id;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER tasks_texts_insert_delete AFTER INSERT OR DELETE ON tasks
  FOR EACH ROW EXECUTE FUNCTION tasklane_copy_task_texts();
--> statement-breakpoint
CREATE TRIGGER tasks_texts_update AFTER UPDATE OF title, description ON tasks
  FOR EACH ROW WHEN (OLD.title IS DISTINCT FROM NEW.title OR OLD.description IS DISTINCT FROM NEW.description)
  EXECUTE FUNCTION tasklane_copy_task_texts();
--> statement-breakpoint
DROP INDEX "tasks_title_trgm_idx";--> statement-breakpoint
DROP INDEX "tasks_description_trgm_idx";
