CREATE TABLE "project_task_counts" (
	"project_id" uuid NOT NULL,
	"status" "task_status" NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "project_task_counts_project_id_status_pk" PRIMARY KEY("project_id","status")
);
--> statement-breakpoint
ALTER TABLE "project_task_counts" ADD CONSTRAINT "project_task_counts_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Kept in the transaction that changes the task. Lock order, so writers of one project never
-- deadlock: first the project's advisory lock that recording the change's activity takes anyway
-- (class 7415, see apps/server/src/activity/store.ts; taken again there, which is free), then the
-- count rows, a status change's two always in (project, status) order. Tasks removed with their
-- project (ON DELETE CASCADE) leave the counts alone: those rows go with the project too.
CREATE FUNCTION tasklane_count_tasks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM projects WHERE id = OLD.project_id) THEN
    RETURN NULL;
  END IF;
  PERFORM pg_advisory_xact_lock(7415, hashtext(CASE WHEN TG_OP = 'DELETE' THEN OLD.project_id ELSE NEW.project_id END::text));
  IF TG_OP = 'INSERT' THEN
    INSERT INTO project_task_counts (project_id, status, count) VALUES (NEW.project_id, NEW.status, 1)
      ON CONFLICT (project_id, status) DO UPDATE SET count = project_task_counts.count + 1;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE project_task_counts SET count = count - 1 WHERE project_id = OLD.project_id AND status = OLD.status;
  ELSIF (OLD.project_id, OLD.status) < (NEW.project_id, NEW.status) THEN
    UPDATE project_task_counts SET count = count - 1 WHERE project_id = OLD.project_id AND status = OLD.status;
    INSERT INTO project_task_counts (project_id, status, count) VALUES (NEW.project_id, NEW.status, 1)
      ON CONFLICT (project_id, status) DO UPDATE SET count = project_task_counts.count + 1;
  ELSE
    INSERT INTO project_task_counts (project_id, status, count) VALUES (NEW.project_id, NEW.status, 1)
      ON CONFLICT (project_id, status) DO UPDATE SET count = project_task_counts.count + 1;
    UPDATE project_task_counts SET count = count - 1 WHERE project_id = OLD.project_id AND status = OLD.status;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER tasks_counted_insert_delete AFTER INSERT OR DELETE ON tasks
  FOR EACH ROW EXECUTE FUNCTION tasklane_count_tasks();
--> statement-breakpoint
CREATE TRIGGER tasks_counted_update AFTER UPDATE OF status, project_id ON tasks
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.project_id IS DISTINCT FROM NEW.project_id)
  EXECUTE FUNCTION tasklane_count_tasks();
--> statement-breakpoint
INSERT INTO project_task_counts (project_id, status, count)
  SELECT project_id, status, count(*)::int FROM tasks GROUP BY project_id, status;
