CREATE TABLE "captured_payloads" (
	"id" text PRIMARY KEY NOT NULL,
	"company_id" text NOT NULL,
	"vendor_key_id" text NOT NULL,
	"connection_id" text,
	"kind" text NOT NULL,
	"payload" text NOT NULL,
	"bytes" integer NOT NULL,
	"created_at" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "submissions" ADD COLUMN "extras" json;--> statement-breakpoint
ALTER TABLE "vendor_keys" ADD COLUMN "capture_since" text;--> statement-breakpoint
ALTER TABLE "captured_payloads" ADD CONSTRAINT "captured_payloads_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "captured_payloads" ADD CONSTRAINT "captured_payloads_vendor_key_id_vendor_keys_id_fk" FOREIGN KEY ("vendor_key_id") REFERENCES "public"."vendor_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "captured_payloads_key_id_idx" ON "captured_payloads" USING btree ("vendor_key_id","id");--> statement-breakpoint
CREATE INDEX "captured_payloads_company_id_idx" ON "captured_payloads" USING btree ("company_id","id");--> statement-breakpoint
CREATE INDEX "submissions_company_email_id_idx" ON "submissions" USING btree ("company_id","contact_email","id") WHERE contact_email IS NOT NULL;--> statement-breakpoint
CREATE INDEX "submissions_company_phone_id_idx" ON "submissions" USING btree ("company_id","contact_phone","id") WHERE contact_phone IS NOT NULL;