-- A project read's totals kept by the writes that change them, as the task counts of 0004 are, so
-- GET /projects/{id} reads a few rows instead of summing the project's tasks and files.
--
-- The estimate total per state sits beside the count of the same state, kept by the same trigger,
-- which now also fires on an estimate's change. Lock order as before (0004): the project's advisory
-- lock (class 7415), then the count rows.
ALTER TABLE "project_task_counts" ADD COLUMN "estimate" numeric DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE OR REPLACE FUNCTION tasklane_count_tasks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM projects WHERE id = OLD.project_id) THEN
    RETURN NULL;
  END IF;
  -- Before any count row, also for an estimate's change: a count row locked first would wait on a
  -- writer holding this lock while the writer waits for that row.
  PERFORM pg_advisory_xact_lock(7415, hashtext(CASE WHEN TG_OP = 'DELETE' THEN OLD.project_id ELSE NEW.project_id END::text));
  IF TG_OP = 'UPDATE' AND (OLD.project_id, OLD.status) = (NEW.project_id, NEW.status) THEN
    -- Only the estimate changed: its state's row.
    UPDATE project_task_counts SET estimate = estimate - coalesce(OLD.estimate, 0) + coalesce(NEW.estimate, 0)
      WHERE project_id = NEW.project_id AND status = NEW.status;
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO project_task_counts (project_id, status, count, estimate) VALUES (NEW.project_id, NEW.status, 1, coalesce(NEW.estimate, 0))
      ON CONFLICT (project_id, status) DO UPDATE SET count = project_task_counts.count + 1, estimate = project_task_counts.estimate + excluded.estimate;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE project_task_counts SET count = count - 1, estimate = estimate - coalesce(OLD.estimate, 0) WHERE project_id = OLD.project_id AND status = OLD.status;
  ELSIF (OLD.project_id, OLD.status) < (NEW.project_id, NEW.status) THEN
    UPDATE project_task_counts SET count = count - 1, estimate = estimate - coalesce(OLD.estimate, 0) WHERE project_id = OLD.project_id AND status = OLD.status;
    INSERT INTO project_task_counts (project_id, status, count, estimate) VALUES (NEW.project_id, NEW.status, 1, coalesce(NEW.estimate, 0))
      ON CONFLICT (project_id, status) DO UPDATE SET count = project_task_counts.count + 1, estimate = project_task_counts.estimate + excluded.estimate;
  ELSE
    INSERT INTO project_task_counts (project_id, status, count, estimate) VALUES (NEW.project_id, NEW.status, 1, coalesce(NEW.estimate, 0))
      ON CONFLICT (project_id, status) DO UPDATE SET count = project_task_counts.count + 1, estimate = project_task_counts.estimate + excluded.estimate;
    UPDATE project_task_counts SET count = count - 1, estimate = estimate - coalesce(OLD.estimate, 0) WHERE project_id = OLD.project_id AND status = OLD.status;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
DROP TRIGGER "tasks_counted_update" ON "tasks";--> statement-breakpoint
CREATE TRIGGER tasks_counted_update AFTER UPDATE OF status, project_id, estimate ON tasks
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.project_id IS DISTINCT FROM NEW.project_id OR OLD.estimate IS DISTINCT FROM NEW.estimate)
  EXECUTE FUNCTION tasklane_count_tasks();
--> statement-breakpoint
-- Backfill, in this migration's transaction (migrations hold their lock; no write runs meanwhile).
UPDATE project_task_counts AS c SET estimate = s.total
  FROM (SELECT project_id, status, sum(estimate) AS total FROM tasks WHERE estimate IS NOT NULL GROUP BY project_id, status) AS s
  WHERE c.project_id = s.project_id AND c.status = s.status;
--> statement-breakpoint
-- The bytes of a project's stored files, each distinct sha256 once (the blob `<project_id>/<sha256>`
-- is shared by every row naming it), kept by the attachments' trigger below: a blob's bytes count
-- from the first row naming its sha256 in the project to the deletion of the last.
CREATE TABLE "project_storage" (
	"project_id" uuid PRIMARY KEY NOT NULL,
	"bytes" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "project_storage" ADD CONSTRAINT "project_storage_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Counted per statement, over its transition table, so that a statement inserting or deleting
-- several rows of the same bytes (a task's deletion cascading to its attachments) counts them once.
-- Under the project's files lock (class 7422, apps/server/src/events/attachment-files.ts), which
-- every insertion and deletion of a project's attachment rows holds: an upload takes it before its
-- insert, a task's deletion before its attachments' cascade (so the lock order stays: rows, the
-- files lock, then 7415), an attachment's deletion here (after its row lock, before recordEvent's
-- 7415). Taken again here, free when held, so the check after it sees every committed row of the
-- project: whether another row names the same sha256 is exact (an index probe of
-- attachments_project_sha256_idx), and two uploads of the same bytes, or a deletion racing an
-- upload, add or subtract its size exactly once. Rows are never updated to other bytes or another
-- project (tasks never move between projects). Rows removed with their project leave the counter
-- alone: it goes with the project too.
CREATE FUNCTION tasklane_count_storage() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  project uuid;
BEGIN
  FOR project IN SELECT DISTINCT c.project_id FROM changed AS c WHERE EXISTS (SELECT 1 FROM projects AS p WHERE p.id = c.project_id) ORDER BY 1 LOOP
    PERFORM pg_advisory_xact_lock(7422, hashtext(project::text));
  END LOOP;
  INSERT INTO project_storage (project_id, bytes)
    SELECT blob.project_id, CASE WHEN TG_OP = 'INSERT' THEN sum(blob.size) ELSE -sum(blob.size) END
    FROM (
      SELECT DISTINCT ON (c.project_id, c.sha256) c.project_id, c.size FROM changed AS c
      WHERE EXISTS (SELECT 1 FROM projects AS p WHERE p.id = c.project_id)
        -- No row but those of this statement names the bytes (an inserted row is in both).
        AND NOT EXISTS (
          SELECT 1 FROM attachments AS a
          WHERE a.project_id = c.project_id AND a.sha256 = c.sha256 AND NOT EXISTS (SELECT 1 FROM changed AS o WHERE o.id = a.id)
        )
    ) AS blob
    GROUP BY blob.project_id
    ON CONFLICT (project_id) DO UPDATE SET bytes = project_storage.bytes + excluded.bytes;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER attachments_counted_insert AFTER INSERT ON attachments
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION tasklane_count_storage();
--> statement-breakpoint
CREATE TRIGGER attachments_counted_delete AFTER DELETE ON attachments
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION tasklane_count_storage();
--> statement-breakpoint
INSERT INTO project_storage (project_id, bytes)
  SELECT project_id, sum(size)::bigint FROM (SELECT DISTINCT ON (project_id, sha256) project_id, size FROM attachments) AS blob GROUP BY project_id;
