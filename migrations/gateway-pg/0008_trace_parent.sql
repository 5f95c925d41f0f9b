ALTER TABLE "submissions" ADD COLUMN "trace_parent" text;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "trace_parent" text;