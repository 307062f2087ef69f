-- A task's place in the board's order (issue 34): a fractional-indexing key (the npm package
-- `fractional-indexing`, resources/tasks/positions.ts), unique within its project, so one key
-- space orders every column of the board and a task keeps its key when its status changes. The
-- keys are compared byte by byte (COLLATE "C"), as the library compares them (JavaScript's `<`),
-- on PostgreSQL and PGlite alike, whatever the database's default collation.
ALTER TABLE "tasks" ADD COLUMN "position" text COLLATE "C";--> statement-breakpoint
-- The existing tasks get the library's integer keys in their order so far (created_at, id) per
-- project: 'a0' … 'az', then 'b00' … 'bzz', 'c000' …, as generateNKeysBetween(null, null, n)
-- makes them (a head letter giving the number of base-62 digits that follow). SQL cannot call the
-- library, so this function writes the n-th such key (from 0); it is dropped once used.
CREATE FUNCTION tasklane_integer_key(n bigint) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  digits constant text := '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  width int := 1;
  span bigint := 62;
  rest bigint := n;
  key text := '';
BEGIN
  -- The keys of `width` digits come after the 62 + 62^2 + … shorter ones.
  WHILE rest >= span LOOP
    rest := rest - span;
    width := width + 1;
    span := span * 62;
  END LOOP;
  FOR i IN 1..width LOOP
    key := substr(digits, (rest % 62)::int + 1, 1) || key;
    rest := rest / 62;
  END LOOP;
  RETURN chr(ascii('a') + width - 1) || key;
END
$$;
--> statement-breakpoint
UPDATE "tasks" SET "position" = ranked.key
  FROM (SELECT "id", tasklane_integer_key(row_number() OVER (PARTITION BY "project_id" ORDER BY "created_at", "id") - 1) AS key FROM "tasks") AS ranked
  WHERE "tasks"."id" = ranked."id";--> statement-breakpoint
DROP FUNCTION tasklane_integer_key(bigint);--> statement-breakpoint
ALTER TABLE "tasks" ALTER COLUMN "position" SET NOT NULL;--> statement-breakpoint
-- No two tasks of a project share a key: the order is total, and a move computed from stale
-- neighbours fails rather than tying (moves are serialised per project: tasks service).
CREATE UNIQUE INDEX "tasks_project_position_key" ON "tasks" USING btree ("project_id","position");--> statement-breakpoint
-- A board column's page (`status=…&sort=position`), in (position, id) keyset order.
CREATE INDEX "tasks_project_status_position_idx" ON "tasks" USING btree ("project_id","status","position","id");
--> statement-breakpoint
-- Statistics for what migrations 0010 to 0013 added (project_states, tasks.parent_id and
-- position, task_relations): until the next ANALYZE the planner guesses, and on 200 000 tasks it
-- planned a page of 50 (its subtask counts) as a scan of every project's states per subtask,
-- with JIT: 430 ms where the same page takes 2 ms once analysed. Autovacuum would analyse the new
-- tables soon, but not a table that only gained columns.
ANALYZE "tasks";--> statement-breakpoint
ANALYZE "project_states";--> statement-breakpoint
ANALYZE "task_relations";--> statement-breakpoint
ANALYZE "project_keys";
