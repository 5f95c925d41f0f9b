CREATE TABLE "connections" (
	"id" text PRIMARY KEY NOT NULL,
	"company_id" text NOT NULL,
	"vendor_key_id" text NOT NULL,
	"name" text NOT NULL,
	"preset" text,
	"settings" json,
	"profile_kind" text NOT NULL,
	"sealed_secrets" text NOT NULL,
	"vendor_api_base" text,
	"token_digest" text NOT NULL,
	"previous_token_digest" text,
	"previous_valid_until" text,
	"proof_failures" integer DEFAULT 0 NOT NULL,
	"last_proof_failure_at" text,
	"last_proof_failure" text,
	"created_at" text NOT NULL,
	"revoked_at" text
);
--> statement-breakpoint
ALTER TABLE "connections" ADD CONSTRAINT "connections_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "connections" ADD CONSTRAINT "connections_vendor_key_id_vendor_keys_id_fk" FOREIGN KEY ("vendor_key_id") REFERENCES "public"."vendor_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "connections_token_digest_uq" ON "connections" USING btree ("token_digest");--> statement-breakpoint
CREATE INDEX "connections_previous_token_digest_idx" ON "connections" USING btree ("previous_token_digest") WHERE previous_token_digest IS NOT NULL;--> statement-breakpoint
CREATE INDEX "connections_company_idx" ON "connections" USING btree ("company_id");--> statement-breakpoint
CREATE UNIQUE INDEX "connections_vendor_key_uq" ON "connections" USING btree ("vendor_key_id");