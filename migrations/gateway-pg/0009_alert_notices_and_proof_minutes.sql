CREATE TABLE "alert_notices" (
	"id" text PRIMARY KEY NOT NULL,
	"company_id" text NOT NULL,
	"alert_id" text NOT NULL,
	"event" text NOT NULL,
	"event_id" text NOT NULL,
	"reminder" boolean NOT NULL,
	"channel" text NOT NULL,
	"attempts" integer NOT NULL,
	"next_attempt_at" bigint NOT NULL,
	"last_error" text,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "proof_failure_minutes" (
	"connection_id" text NOT NULL,
	"company_id" text NOT NULL,
	"minute" integer NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "proof_failure_minutes_connection_id_minute_pk" PRIMARY KEY("connection_id","minute")
);
--> statement-breakpoint
ALTER TABLE "alert_notices" ADD CONSTRAINT "alert_notices_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_notices" ADD CONSTRAINT "alert_notices_alert_id_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alerts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "proof_failure_minutes" ADD CONSTRAINT "proof_failure_minutes_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_notices_due_idx" ON "alert_notices" USING btree ("next_attempt_at");--> statement-breakpoint
CREATE INDEX "proof_failure_minutes_company_idx" ON "proof_failure_minutes" USING btree ("company_id","minute");