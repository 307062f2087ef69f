-- Servers cache "this token still holds" for a few seconds. Whatever changes that answer — a logout
-- (a revoked_tokens row), a password change or reset (token_version), a deleted user — announces it
-- on one channel, whichever process or instance made the change, so every server drops its copy.
CREATE OR REPLACE FUNCTION tasklane_announce_token_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'revoked_tokens' THEN
    PERFORM pg_notify('tasklane_tokens', 'jti:' || NEW.jti);
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('tasklane_tokens', 'user:' || OLD.id::text);
  ELSE
    PERFORM pg_notify('tasklane_tokens', 'user:' || NEW.id::text);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER revoked_tokens_announce AFTER INSERT ON revoked_tokens
  FOR EACH ROW EXECUTE FUNCTION tasklane_announce_token_change();
--> statement-breakpoint
CREATE TRIGGER users_token_version_announce AFTER UPDATE OF token_version ON users
  FOR EACH ROW WHEN (OLD.token_version IS DISTINCT FROM NEW.token_version) EXECUTE FUNCTION tasklane_announce_token_change();
--> statement-breakpoint
CREATE TRIGGER users_deleted_announce AFTER DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION tasklane_announce_token_change();
