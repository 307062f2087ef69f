#!/usr/bin/env bash
# What a task's status change costs PostgreSQL itself, and which parts of the schema that cost is in.
# Runs the UPDATE a PATCH makes (status + updated_at of one random task) with pgbench against a
# database seeded by the suite (`npm run bench -- --db postgres --keep-db` prints its name), and
# reports transactions/s and the machine's CPU time per transaction (all processes, from /proc/stat)
# for the schema as it is and for variants: without the task-count trigger, without the two
# trigram (text-search) indexes, and with the trigram index's pending list off (fastupdate).
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
update tasks set status = (case when status = 'TODO' then 'IN_PROGRESS' else 'TODO' end),
  updated_at = clock_timestamp() where id = (select id from bench_write_ids where n = :n);
SQL

run "as it is"
run "as it is (again)"
# Fewer clients, fewer backends competing for the cores (the service's pool size: docs/operations.md).
for round in 1 2; do
  run "as it is, 3 clients ($round)" -c 3
  run "as it is, 10 clients ($round)" -c 10
done
psql_q "alter table tasks disable trigger tasks_counted_update"
run "without the task-count trigger"
psql_q "alter table tasks enable trigger tasks_counted_update"
psql_q "alter index tasks_title_trgm_idx set (fastupdate = off); alter index tasks_description_trgm_idx set (fastupdate = off)"
run "trigram indexes without their pending list"
psql_q "alter index tasks_title_trgm_idx reset (fastupdate); alter index tasks_description_trgm_idx reset (fastupdate)"
TITLE_DEF=$(psql_q "select pg_get_indexdef('tasks_title_trgm_idx'::regclass)")
DESCRIPTION_DEF=$(psql_q "select pg_get_indexdef('tasks_description_trgm_idx'::regclass)")
psql_q "drop index tasks_title_trgm_idx; drop index tasks_description_trgm_idx"
run "without the two trigram indexes"
psql_q "$TITLE_DEF; $DESCRIPTION_DEF"
run "as it is (after putting them back)"

# The floor of any status change on this machine: the same UPDATE with nothing but the primary key
# and no count trigger; then the sort and filter indexes back, then the trigger, then the trigram
# indexes (the schema as it is). What each promise of the service (every sort and filter on an index, text search on an
# index, counts kept on write) adds to it is the difference.
TASK_INDEXES="from pg_indexes where schemaname = 'public' and tablename = 'tasks'"
INDEX_COUNT=$(psql_q "select count(*) $TASK_INDEXES")
BTREE_DEFS=$(psql_q "select string_agg(indexdef, '; ') $TASK_INDEXES and indexname <> 'tasks_pkey' and indexdef not like '% USING gin %'")
TRGM_DEFS=$(psql_q "select string_agg(indexdef, '; ') $TASK_INDEXES and indexdef like '% USING gin %'")
restore_schema() { psql_q "alter table tasks enable trigger tasks_counted_update" || true; for def in "$BTREE_DEFS" "$TRGM_DEFS"; do psql_q "$def" 2>/dev/null || true; done; }
trap 'restore_schema; rm -f "$SCRIPT"; psql_q "drop table if exists bench_write_ids" || true' EXIT
# twice <label>: two runs on 3 clients, the service's pool on this machine.
twice() { for round in 1 2; do run "$1, 3 clients ($round)" -c 3; done; }
psql_q "alter table tasks disable trigger tasks_counted_update"
psql_q "$(psql_q "select string_agg('drop index ' || indexname, '; ') $TASK_INDEXES and indexname <> 'tasks_pkey'")"
psql_q "vacuum analyze tasks"
twice "floor: primary key only, no trigger"
psql_q "$BTREE_DEFS"
psql_q "vacuum analyze tasks"
twice "sort/filter indexes, no trigram, no trigger"
psql_q "alter table tasks enable trigger tasks_counted_update"
twice "sort/filter indexes and the trigger, no trigram"
psql_q "$TRGM_DEFS"
psql_q "vacuum analyze tasks"
twice "as it is again"
[ "$(psql_q "select count(*) $TASK_INDEXES")" = "$INDEX_COUNT" ] || echo "warning: tasks' indexes differ from before the run"
