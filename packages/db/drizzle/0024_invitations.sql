-- Invitations of people without an account (issue 39): one per project and email, its row removed
-- when it is accepted or revoked. Only the SHA-256 of the link's token is kept, so a database dump
-- hands out no link; inviting the same email again renews the row (new token, new expiry).
CREATE TABLE "invitations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"email" text NOT NULL,
	"role" "member_role" NOT NULL,
	"token_digest" text NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "invitations_project_email_key" ON "invitations" USING btree ("project_id","email");--> statement-breakpoint
CREATE UNIQUE INDEX "invitations_token_digest_key" ON "invitations" USING btree ("token_digest");
