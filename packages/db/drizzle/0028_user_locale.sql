-- The language a person chose for the web app and their emails (issue 39): one of the app's
-- languages ('en', 'de', 'fr', 'es', 'ja', checked by the API's schema), or null for "the
-- browser's" (emails then speak English). No CHECK: a language added later needs no migration.
ALTER TABLE "users" ADD COLUMN "locale" text;
