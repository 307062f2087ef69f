#!/usr/bin/env bash
# What a page of 50 tasks costs PostgreSQL itself, by the form its columns are read in: the page
# statement of GET /tasks/project/{id} (membership check, 50 rows in created_at order) with the
# timestamps as they are stored (what the service reads and formats in JS), formatted
# by to_char (what it read before), and each row built as JSON (an alternative that was measured and
# not taken). Runs against a database seeded by the suite (`npm run bench -- --db postgres --keep-db`
# prints its name), on its largest project, with pgbench. Usage: bench/src/pg-page-cost.sh <database> [seconds]
set -euo pipefail
DB=${1:?database name (a kept bench database)}
SECONDS_PER_RUN=${2:-8}
source "$(dirname "$0")/pgbench-lib.sh"

PROJECT=$(psql_q "select project_id from tasks group by 1 order by count(*) desc limit 1")
MEMBER=$(psql_q "select user_id from memberships where project_id = '$PROJECT' limit 1")
SCRIPT=$(mktemp)
trap 'rm -f "$SCRIPT"' EXIT
ISO='YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'

page() {
  cat > "$SCRIPT" <<SQL
select $1 from tasks
where project_id = :project and exists (select 1 from memberships where project_id = :project and user_id = :member)
order by created_at asc, id asc limit 51;
SQL
}
VARS=(-D project="$PROJECT" -D member="$MEMBER" -D iso="$ISO")
AS_STORED='id, title, description, status, priority, due_date, assignee_id, project_id, created_by_id, created_at, updated_at, completed_at'
# The format is a pgbench variable: its colons would otherwise be read as variable references.
FORMATTED="id, title, description, status, priority, to_char(due_date at time zone 'UTC', :iso), assignee_id, project_id, created_by_id,
  to_char(created_at at time zone 'UTC', :iso), to_char(updated_at at time zone 'UTC', :iso), to_char(completed_at at time zone 'UTC', :iso)"
AS_JSON="json_build_object('id', id, 'title', title, 'description', description, 'status', status, 'priority', priority, 'dueDate', due_date,
  'assigneeId', assignee_id, 'projectId', project_id, 'createdById', created_by_id, 'createdAt', created_at, 'updatedAt', updated_at, 'completedAt', completed_at)::text"

for pass in 1 2; do
  page "$AS_STORED"; run "timestamps as stored (pass $pass)" "${VARS[@]}"
  page "$FORMATTED"; run "timestamps by to_char (pass $pass)" "${VARS[@]}"
  page "$AS_JSON"; run "each row as JSON (pass $pass)" "${VARS[@]}"
done
