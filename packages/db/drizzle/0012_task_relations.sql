-- Relations between two tasks: `task_id` (the source) blocks, relates to or duplicates
-- `related_task_id` (the target), possibly in another project. Deleting either task (or its
-- project) deletes the relation.
CREATE TABLE "task_relations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"task_id" uuid NOT NULL,
	"related_task_id" uuid NOT NULL,
	"created_by" uuid NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "task_relations_type_check" CHECK ("type" in ('blocks', 'relates_to', 'duplicates')),
	CONSTRAINT "task_relations_not_self" CHECK ("task_id" <> "related_task_id")
);
--> statement-breakpoint
ALTER TABLE "task_relations" ADD CONSTRAINT "task_relations_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_relations" ADD CONSTRAINT "task_relations_related_task_id_tasks_id_fk" FOREIGN KEY ("related_task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_relations" ADD CONSTRAINT "task_relations_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- The same relation twice is impossible: one per (source, target, type), and `relates_to` is
-- symmetric (A relates to B is B relates to A), so one per unordered pair. Reads go both ways: the
-- first index serves a task's outgoing relations (and the `blocks` walk of the cycle check), the
-- second its incoming ones (and `blocked`, an EXISTS on it for every task read).
CREATE UNIQUE INDEX "task_relations_outgoing_key" ON "task_relations" USING btree ("task_id","type","related_task_id");--> statement-breakpoint
CREATE INDEX "task_relations_incoming_idx" ON "task_relations" USING btree ("related_task_id","type");--> statement-breakpoint
CREATE UNIQUE INDEX "task_relations_relates_to_key" ON "task_relations" USING btree (least("task_id","related_task_id"),greatest("task_id","related_task_id")) WHERE "type" = 'relates_to';--> statement-breakpoint
-- A relation's event names the other task of the relation too (when in the same project), so that
-- task's history lists it; almost every event has none, so the index holds only those that do.
ALTER TABLE "activity" ADD COLUMN "related_task_id" uuid;--> statement-breakpoint
CREATE INDEX "activity_related_task_idx" ON "activity" USING btree ("related_task_id","id") WHERE "activity"."related_task_id" is not null;
