CREATE TYPE "public"."notification_email" AS ENUM('off', 'instant', 'daily');--> statement-breakpoint
CREATE TABLE "notification_mails" (
	"notification_id" uuid PRIMARY KEY NOT NULL,
	"via" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_settings" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"email" "notification_email" DEFAULT 'instant' NOT NULL,
	"last_digest_on" date,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "notification_mails" ADD CONSTRAINT "notification_mails_notification_id_notifications_id_fk" FOREIGN KEY ("notification_id") REFERENCES "public"."notifications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_settings" ADD CONSTRAINT "notification_settings_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "notification_settings_daily_idx" ON "notification_settings" USING btree ("last_digest_on") WHERE "notification_settings"."email" = 'daily';--> statement-breakpoint
-- The notification mailer reads the notifications of the last hour that no email has handled yet.
CREATE INDEX "notifications_created_idx" ON "notifications" USING btree ("created_at") WHERE "read_at" IS NULL;--> statement-breakpoint
-- Wakes every instance's notification mailer at the commit of new notifications (one per statement).
CREATE FUNCTION tasklane_announce_notifications() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('tasklane_notification_mail', '');
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER notifications_inserted_announce AFTER INSERT ON notifications
  FOR EACH STATEMENT EXECUTE FUNCTION tasklane_announce_notifications();
