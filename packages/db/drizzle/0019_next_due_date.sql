-- A recurring task's next due date (issue 36's `nextDueDate`), stored when its rule or due date is
-- written (resources/tasks/service.ts), so a read no longer steps the rule with `rrule`. Null for a
-- task that does not recur, or whose rule has no further date (COUNT or UNTIL reached).
-- No backfill: PostgreSQL cannot step an RFC 5545 rule, and stepping every recurring task at start-up
-- would hold a deploy on the table's size. A recurring task written before this migration keeps
-- null until its next write, and its reads step its rule meanwhile (toTask: null with a rule and a
-- due date means "not stored yet"; for one whose rule has no further date that step is short: COUNT=1
-- answers at once, UNTIL bounds the search).
ALTER TABLE "tasks" ADD COLUMN "next_due_date" timestamp with time zone;
