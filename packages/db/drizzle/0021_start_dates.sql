-- A task's start date (issue 37, "Calendar and timeline"): when work on it begins, shown with its
-- due date as a bar on the web app's timeline. Null for a task without one. The tasks service
-- refuses a start after the due date (START_AFTER_DUE) on the task as a write leaves it; there is no
-- CHECK constraint, so a PATCH of only one of the two dates is judged against the stored other by
-- the service, which names the field in its 400.
-- No index: the timeline lists a project's tasks by due date (tasks_project_due_idx serves
-- dueAfter) and filters those by start date; a project's unscheduled tasks are one page.
ALTER TABLE "tasks" ADD COLUMN "start_date" timestamp with time zone;
