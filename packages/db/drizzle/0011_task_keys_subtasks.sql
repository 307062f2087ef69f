-- Task keys ("ENG-42") and subtasks (issue 34).
--
-- A project's key is in projects.key (its current one) and in project_keys, which holds every key
-- the project has had, the current one included: its primary key makes a key belong to one project
-- for good, so a link with a former key always finds the task it was made for, never another
-- project's. A key is freed only with its project's deletion.
ALTER TABLE "projects" ADD COLUMN "key" text;--> statement-breakpoint
-- The number the project's next task gets: taken with an UPDATE in the task's creation, so
-- concurrent creations get distinct numbers, and never given back (a deleted task's number stays used).
ALTER TABLE "projects" ADD COLUMN "next_task_number" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
CREATE TABLE "project_keys" (
	"key" text PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL
);
--> statement-breakpoint
ALTER TABLE "project_keys" ADD CONSTRAINT "project_keys_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "project_keys_project_idx" ON "project_keys" USING btree ("project_id");--> statement-breakpoint
-- The stem of the key derived from a project's name, used both here and by the server (projects
-- store): the name without accents, upper case, A-Z and 0-9 only; the initials of its words (at
-- most 4) when it has two or more, else its first 3 characters; never starting with a digit. It may
-- be shorter than a key (2 characters): tasklane_free_project_key then adds a number.
CREATE FUNCTION tasklane_project_key_stem(name text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  words text[] := array_remove(regexp_split_to_array(upper(regexp_replace(normalize(name, NFKD), '[\u0300-\u036f]', '', 'g')), '[^A-Z0-9]+'), '');
  initials text := '';
  word text;
BEGIN
  FOREACH word IN ARRAY words LOOP
    initials := initials || left(word, 1);
  END LOOP;
  initials := left(ltrim(initials, '0123456789'), 4);
  IF cardinality(words) >= 2 AND length(initials) >= 2 THEN
    RETURN initials;
  END IF;
  RETURN left(ltrim(array_to_string(words, ''), '0123456789'), 3);
END
$$;
--> statement-breakpoint
-- The first key from a stem that no project has or had: the stem itself, then the stem followed by
-- 2, 3 … (a stem under 2 characters by 1, 2 …; an empty one is "P"). The caller holds the lock
-- that serialises key claims (apps/server/src/platform/locks.ts, PROJECT_KEY_LOCK_CLASS).
CREATE FUNCTION tasklane_free_project_key(stem text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  base text := CASE WHEN stem = '' THEN 'P' ELSE stem END;
  n integer := 1;
  candidate text;
BEGIN
  LOOP
    candidate := CASE WHEN n = 1 AND length(base) >= 2 THEN base ELSE base || n END;
    EXIT WHEN NOT EXISTS (SELECT 1 FROM project_keys WHERE key = candidate);
    n := n + 1;
  END LOOP;
  RETURN candidate;
END
$$;
--> statement-breakpoint
-- Existing projects get their keys in creation order: the older project keeps the plain stem.
DO $$
DECLARE
  project record;
  claimed text;
BEGIN
  FOR project IN SELECT id, name FROM projects ORDER BY created_at, id LOOP
    claimed := tasklane_free_project_key(tasklane_project_key_stem(project.name));
    INSERT INTO project_keys (key, project_id) VALUES (claimed, project.id);
    UPDATE projects SET key = claimed WHERE id = project.id;
  END LOOP;
END
$$;
--> statement-breakpoint
ALTER TABLE "projects" ALTER COLUMN "key" SET NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "projects_key_key" ON "projects" USING btree ("key");--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "number" integer;--> statement-breakpoint
-- Existing tasks are numbered per project in creation order.
UPDATE tasks SET number = numbered.number
  FROM (SELECT id, row_number() OVER (PARTITION BY project_id ORDER BY created_at, id)::integer AS number FROM tasks) AS numbered
  WHERE tasks.id = numbered.id;
--> statement-breakpoint
UPDATE projects SET next_task_number = numbered.last + 1
  FROM (SELECT project_id, max(number) AS last FROM tasks GROUP BY project_id) AS numbered
  WHERE projects.id = numbered.project_id;
--> statement-breakpoint
ALTER TABLE "tasks" ALTER COLUMN "number" SET NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "tasks_project_number_key" ON "tasks" USING btree ("project_id","number");--> statement-breakpoint
-- A subtask's parent; its deletion detaches the subtasks (the server detaches them first and
-- records it; SET NULL only backs that up).
ALTER TABLE "tasks" ADD COLUMN "parent_id" uuid;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_parent_id_tasks_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."tasks"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- Every task read counts its subtasks, and those done, by parent_id: this index (of subtasks only,
-- so small) answers both counts from the index alone, and the parentId filter.
CREATE INDEX "tasks_parent_status_idx" ON "tasks" USING btree ("parent_id","status") WHERE "tasks"."parent_id" is not null;
