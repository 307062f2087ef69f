-- Custom fields (issue 36): a project's fields, and each task's value of each field it has one of.
CREATE TABLE "project_fields" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"options" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"position" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "project_fields_type_check" CHECK ("type" in ('text', 'number', 'date', 'select', 'multi_select', 'user', 'checkbox', 'url'))
);
--> statement-breakpoint
ALTER TABLE "project_fields" ADD CONSTRAINT "project_fields_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Names are unique per project regardless of case (409 FIELD_EXISTS).
CREATE UNIQUE INDEX "project_fields_project_name_key" ON "project_fields" USING btree ("project_id",lower("name"));--> statement-breakpoint
-- One row per task and field that has a value: `value` as the API shows it, and the one sort
-- column its type uses (text, url, date, user: sort_text; number, checkbox and the selects, by
-- their first option's place: sort_number). A filter probes the primary key per task in the
-- page's order; a sort by a field walks the field's index from the cursor. Neither reads more
-- as the project grows.
CREATE TABLE "task_field_values" (
	"task_id" uuid NOT NULL,
	"field_id" uuid NOT NULL,
	"value" jsonb NOT NULL,
	"sort_text" text,
	"sort_number" double precision,
	CONSTRAINT "task_field_values_task_id_field_id_pk" PRIMARY KEY("task_id","field_id")
);
--> statement-breakpoint
ALTER TABLE "task_field_values" ADD CONSTRAINT "task_field_values_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_field_values" ADD CONSTRAINT "task_field_values_field_id_project_fields_id_fk" FOREIGN KEY ("field_id") REFERENCES "public"."project_fields"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "task_field_values_text_idx" ON "task_field_values" USING btree ("field_id","sort_text","task_id");--> statement-breakpoint
CREATE INDEX "task_field_values_number_idx" ON "task_field_values" USING btree ("field_id","sort_number","task_id");--> statement-breakpoint
-- Planned well from the first page on (an unanalysed table once got a bad plan).
ANALYZE "project_fields";--> statement-breakpoint
ANALYZE "task_field_values";
