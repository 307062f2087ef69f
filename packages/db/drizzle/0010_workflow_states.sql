CREATE TABLE "project_states" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"key" text NOT NULL,
	"name" text NOT NULL,
	"category" text NOT NULL,
	"color" text NOT NULL,
	"position" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "project_states_category_check" CHECK ("project_states"."category" in ('backlog', 'unstarted', 'started', 'completed', 'cancelled'))
);
--> statement-breakpoint
ALTER TABLE "project_states" ADD CONSTRAINT "project_states_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "project_states_project_key_key" ON "project_states" USING btree ("project_id","key");--> statement-breakpoint
-- Every existing project gets the five states a new one starts with (resources/states/defaults.ts
-- says the same for new projects), so every task's status is a key of its project's states.
INSERT INTO "project_states" ("id", "project_id", "key", "name", "category", "color", "position")
  SELECT gen_random_uuid(), p.id, d.key, d.name, d.category, d.color, d.position
  FROM "projects" AS p CROSS JOIN (VALUES
    ('TODO', 'To do', 'unstarted', '#6b7280', 0),
    ('IN_PROGRESS', 'In progress', 'started', '#2563eb', 1),
    ('IN_REVIEW', 'In review', 'started', '#9333ea', 2),
    ('DONE', 'Done', 'completed', '#16a34a', 3),
    ('CANCELLED', 'Cancelled', 'cancelled', '#dc2626', 4)
  ) AS d(key, name, category, color, position);
--> statement-breakpoint
-- A status is now a state's key, text. The count trigger's WHEN names the column, so it goes while
-- the type changes and comes back as it was (its function, 0004's, is keyed by the status's value
-- and works on text unchanged). The default goes: the service gives a new task its project's
-- first unstarted state.
DROP TRIGGER "tasks_counted_update" ON "tasks";--> statement-breakpoint
ALTER TABLE "tasks" ALTER COLUMN "status" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "tasks" ALTER COLUMN "status" SET DATA TYPE text USING "status"::text;--> statement-breakpoint
ALTER TABLE "project_task_counts" ALTER COLUMN "status" SET DATA TYPE text USING "status"::text;--> statement-breakpoint
CREATE TRIGGER tasks_counted_update AFTER UPDATE OF status, project_id ON tasks
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.project_id IS DISTINCT FROM NEW.project_id)
  EXECUTE FUNCTION tasklane_count_tasks();
--> statement-breakpoint
DROP TYPE "public"."task_status";
