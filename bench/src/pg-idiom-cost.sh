#!/usr/bin/env bash
# What issue 33's write idiom costs PostgreSQL itself, against the bare write it is measured by: a
# task's status change as the bare UPDATE (autocommit, one statement), and as the least the idiom
# takes (the task's row and one event row in one transaction), with pgbench, no server in between.
# The variants, each on 3 clients (the service's pool on this machine), twice:
#   bare            UPDATE tasks … (autocommit)
#   one statement   the UPDATE and the event's INSERT in one statement (a CTE): one round trip
#   transaction     BEGIN; UPDATE; INSERT the event; COMMIT
#   with checks     BEGIN; the caller's role; the task's row locked; UPDATE; INSERT; COMMIT
# The event rows are written as already dispatched (no dispatcher's work follows, and the partial
# index of undispatched events is not touched), so every variant is a floor of the real write; they
# are deleted at the end. Usage: bench/src/pg-idiom-cost.sh <database> [seconds]
set -euo pipefail
DB=$1
SECONDS_PER_RUN=${2:-8}
source "$(dirname "$0")/pgbench-lib.sh"

# One project holds a quarter of the tasks; leave it out so the runs measure cost, not lock waits.
psql_q "drop table if exists bench_write_ids;
  create table bench_write_ids as select row_number() over () as n, t.id, t.project_id, m.user_id from tasks as t
    join lateral (select user_id from memberships where project_id = t.project_id limit 1) as m on true
    where t.project_id <> (select project_id from tasks group by 1 order by count(*) desc limit 1);
  create unique index on bench_write_ids (n)"
COUNT=$(psql_q "select count(*) from bench_write_ids")
SCRIPT=$(mktemp)
trap 'rm -f "$SCRIPT"; psql_q "drop table if exists bench_write_ids; delete from activity where type = '"'"'bench.idiom'"'"'" || true' EXIT
NEXT="(case when status = 'TODO' then 'IN_PROGRESS' else 'TODO' end)"
EVENT="insert into activity (project_id, task_id, actor_id, type, resource, changes, dispatched_at)"

script() { printf '\\set n random(1, %s)\n%s\n' "$COUNT" "$1" > "$SCRIPT"; }

script "update tasks set status = $NEXT, updated_at = clock_timestamp() where id = (select id from bench_write_ids where n = :n);"
for round in 1 2; do run "bare UPDATE, 3 clients ($round)" -c 3; done

script "with changed as (update tasks set status = $NEXT, updated_at = clock_timestamp() where id = (select id from bench_write_ids where n = :n) returning *)
$EVENT select project_id, id, created_by_id, 'bench.idiom', to_jsonb(changed.*), jsonb_build_object('status', status), clock_timestamp() from changed;"
for round in 1 2; do run "UPDATE + event, one statement, 3 clients ($round)" -c 3; done

script "begin;
update tasks set status = $NEXT, updated_at = clock_timestamp() where id = (select id from bench_write_ids where n = :n);
$EVENT select project_id, id, created_by_id, 'bench.idiom', to_jsonb(tasks.*), jsonb_build_object('status', status), clock_timestamp() from tasks where id = (select id from bench_write_ids where n = :n);
commit;"
for round in 1 2; do run "BEGIN; UPDATE; event; COMMIT, 3 clients ($round)" -c 3; done

script "begin;
select role from memberships where project_id = (select project_id from bench_write_ids where n = :n) and user_id = (select user_id from bench_write_ids where n = :n);
select * from tasks where id = (select id from bench_write_ids where n = :n) for update;
update tasks set status = $NEXT, updated_at = clock_timestamp() where id = (select id from bench_write_ids where n = :n);
$EVENT select project_id, id, created_by_id, 'bench.idiom', to_jsonb(tasks.*), jsonb_build_object('status', status), clock_timestamp() from tasks where id = (select id from bench_write_ids where n = :n);
commit;"
for round in 1 2; do run "with role check and row lock, 3 clients ($round)" -c 3; done
