ALTER TABLE "submissions" ADD COLUMN "connection_id" text;--> statement-breakpoint
ALTER TABLE "submissions" ADD COLUMN "held_reason" text;--> statement-breakpoint
ALTER TABLE "submissions" ADD COLUMN "note" text;--> statement-breakpoint
ALTER TABLE "submissions" ADD COLUMN "vendor_record_id" text;--> statement-breakpoint
ALTER TABLE "submissions" ADD COLUMN "record_action" text;--> statement-breakpoint
ALTER TABLE "submissions" ADD COLUMN "test" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "submissions" ADD COLUMN "fetch_target" json;--> statement-breakpoint
CREATE INDEX "submissions_company_connection_id_idx" ON "submissions" USING btree ("company_id","connection_id","id") WHERE connection_id IS NOT NULL;