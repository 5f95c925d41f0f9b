CREATE TABLE "alert_settings" (
	"company_id" text PRIMARY KEY NOT NULL,
	"thresholds" json NOT NULL,
	"routes" json NOT NULL,
	"channels" json NOT NULL,
	"sealed_secrets" text,
	"renotify_minutes" integer NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alerts" (
	"id" text PRIMARY KEY NOT NULL,
	"company_id" text NOT NULL,
	"condition" text NOT NULL,
	"resource_type" text NOT NULL,
	"resource_id" text NOT NULL,
	"severity" text NOT NULL,
	"status" text NOT NULL,
	"count" integer NOT NULL,
	"message" text NOT NULL,
	"link" text NOT NULL,
	"opened_at" text NOT NULL,
	"last_seen_at" text NOT NULL,
	"resolved_at" text,
	"acknowledged_at" text,
	"muted_until" text,
	"notified_at" text,
	"resolved_notified_at" text,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "alert_settings" ADD CONSTRAINT "alert_settings_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "alerts_live_uq" ON "alerts" USING btree ("company_id","condition","resource_type","resource_id") WHERE status <> 'resolved';--> statement-breakpoint
CREATE INDEX "alerts_company_id_idx" ON "alerts" USING btree ("company_id","id");--> statement-breakpoint
CREATE INDEX "alerts_resolved_notice_owed_idx" ON "alerts" USING btree ("company_id") WHERE status = 'resolved' AND resolved_notified_at IS NULL AND notified_at IS NOT NULL;--> statement-breakpoint
CREATE INDEX "submissions_vendor_key_id_idx" ON "submissions" USING btree ("vendor_key_id","id");