#!/usr/bin/env bash
# What a task's status change costs PostgreSQL itself, and which parts of the schema that cost is in.
# Runs the UPDATE a PATCH makes (status + updated_at of one random task) with pgbench against a
# database seeded by the suite (`npm run bench -- --db postgres --keep-db` prints its name), and
# reports transactions/s and the machine's CPU time per transaction (all processes, from /proc/stat)
# for the schema as it is and for variants: without the task-count trigger, and with the two
# trigram (text-search) indexes on `tasks` itself, where they were before migration 0005.
# Every variant is undone before the next. Usage: bench/src/pg-write-cost.sh <database> [seconds]
set -euo pipefail
DB=${1:?database name (a kept bench database)}
SECONDS_PER_RUN=${2:-8}
source "$(dirname "$0")/pgbench-lib.sh"

# One project holds a quarter of the tasks; leave it out so the runs measure cost, not lock waits.
psql_q "drop table if exists bench_write_ids;
  create table bench_write_ids as select row_number() over () as n, id from tasks
    where project_id <> (select project_id from tasks group by 1 order by count(*) desc limit 1);
  create unique index on bench_write_ids (n)"
COUNT=$(psql_q "select count(*) from bench_write_ids")
SCRIPT=$(mktemp)
trap 'rm -f "$SCRIPT"; psql_q "drop table if exists bench_write_ids" || true' EXIT
cat > "$SCRIPT" <<SQL
\set n random(1, $COUNT)
update tasks set status = (case when status = 'TODO' then 'IN_PROGRESS' else 'TODO' end)::task_status,
  updated_at = clock_timestamp() where id = (select id from bench_write_ids where n = :n);
SQL

run "as it is"
run "as it is (again)"
# Fewer clients, fewer backends competing for the cores (the service's pool: section "Session 6").
for round in 1 2; do
  run "as it is, 3 clients ($round)" -c 3
  run "as it is, 10 clients ($round)" -c 10
done
psql_q "alter table tasks disable trigger tasks_counted_update"
run "without the task-count trigger"
psql_q "alter table tasks enable trigger tasks_counted_update"
# Session 7 moved the trigram (text-search) indexes off `tasks` to `task_texts` (migration 0005),
# which a status change does not touch. Put them back on `tasks` for a while to see what they cost.
for round in 1 2; do
  psql_q "create index bench_title_trgm on tasks using gin (title gin_trgm_ops);
    create index bench_description_trgm on tasks using gin (description gin_trgm_ops)"
  run "trigram indexes on tasks, as before 0005 ($round)" -c 3
  psql_q "drop index bench_title_trgm; drop index bench_description_trgm"
  run "as it is, 3 clients, again ($round)" -c 3
done
