-- Search across projects (issue 37): each task's and comment's words, kept with the row as a
-- generated column, so no write path has to remember them, and indexed by GIN for `@@`.
-- The `simple` configuration: no stemming and no stop words, the same for every language (a word
-- is found as written, lower-cased), and PGlite has it as PostgreSQL does. The search itself is
-- resources/search/store.ts.
-- `<` and `>` are read as spaces: the parser takes what lies between them for an HTML tag and skips
-- it (and all of a <script> element), but a user writes text, and `a<b` or `<script>` are words here.
ALTER TABLE "tasks" ADD COLUMN "search_vector" tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, translate("title" || ' ' || "description", '<>', '  '))) STORED;--> statement-breakpoint
CREATE INDEX "tasks_search_idx" ON "tasks" USING gin ("search_vector");--> statement-breakpoint
ALTER TABLE "comments" ADD COLUMN "search_vector" tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, translate("text", '<>', '  '))) STORED;--> statement-breakpoint
CREATE INDEX "comments_search_idx" ON "comments" USING gin ("search_vector");
