CREATE TABLE "booked_appointments" (
	"company_id" text NOT NULL,
	"appointment_id" text NOT NULL,
	"vendor_key_id" text NOT NULL,
	"submission_id" text NOT NULL,
	"lead_id" text,
	"created_at" text NOT NULL,
	CONSTRAINT "booked_appointments_company_id_appointment_id_pk" PRIMARY KEY("company_id","appointment_id")
);
--> statement-breakpoint
CREATE TABLE "companies" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"limits" json,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mapping_failures" (
	"id" text PRIMARY KEY NOT NULL,
	"company_id" text NOT NULL,
	"vendor_key_id" text NOT NULL,
	"profile_version_id" text NOT NULL,
	"message" text NOT NULL,
	"raw_payload" text,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "owner_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"owner_id" text NOT NULL,
	"kind" text NOT NULL,
	"name" text,
	"token_digest" text NOT NULL,
	"csrf" text,
	"created_at" text NOT NULL,
	"expires_at" text,
	"revoked_at" text,
	"last_used_at" text
);
--> statement-breakpoint
CREATE TABLE "owners" (
	"id" text PRIMARY KEY NOT NULL,
	"company_id" text NOT NULL,
	"email" text NOT NULL,
	"name" text NOT NULL,
	"role" text NOT NULL,
	"password_hash" text NOT NULL,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "platform_deliveries" (
	"company_id" text NOT NULL,
	"delivery_id" text NOT NULL,
	"keep_until" bigint NOT NULL,
	CONSTRAINT "platform_deliveries_company_id_delivery_id_pk" PRIMARY KEY("company_id","delivery_id")
);
--> statement-breakpoint
CREATE TABLE "platform_events" (
	"company_id" text NOT NULL,
	"id" text NOT NULL,
	"event" text NOT NULL,
	"resource_type" text NOT NULL,
	"resource_id" text NOT NULL,
	"resource_version" integer NOT NULL,
	"occurred_at" text NOT NULL,
	"body" text NOT NULL,
	"delivery_id" text NOT NULL,
	"fanned_out" integer NOT NULL,
	"received_at" text NOT NULL,
	CONSTRAINT "platform_events_company_id_id_pk" PRIMARY KEY("company_id","id")
);
--> statement-breakpoint
CREATE TABLE "platform_webhook_secrets" (
	"company_id" text PRIMARY KEY NOT NULL,
	"sealed_secrets" text NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "profile_versions" (
	"id" text PRIMARY KEY NOT NULL,
	"profile_id" text NOT NULL,
	"company_id" text NOT NULL,
	"version" integer NOT NULL,
	"expression" text NOT NULL,
	"samples" json NOT NULL,
	"status" text NOT NULL,
	"samples_passed" boolean NOT NULL,
	"created_at" text NOT NULL,
	"published_at" text
);
--> statement-breakpoint
CREATE TABLE "profiles" (
	"id" text PRIMARY KEY NOT NULL,
	"company_id" text NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"description" text,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sourced_leads" (
	"company_id" text NOT NULL,
	"lead_id" text NOT NULL,
	"vendor_key_id" text,
	"contact_submission_id" text NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL,
	CONSTRAINT "sourced_leads_company_id_lead_id_pk" PRIMARY KEY("company_id","lead_id")
);
--> statement-breakpoint
CREATE TABLE "submission_attempts" (
	"id" text PRIMARY KEY NOT NULL,
	"submission_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"counted" boolean NOT NULL,
	"started_at" text NOT NULL,
	"status" integer,
	"error" text,
	"latency_ms" integer NOT NULL,
	"upstream_request_id" text,
	"upstream_api_version" text,
	"idempotency_key" text
);
--> statement-breakpoint
CREATE TABLE "submissions" (
	"id" text PRIMARY KEY NOT NULL,
	"company_id" text NOT NULL,
	"vendor_key_id" text NOT NULL,
	"credential_id" text NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"raw_payload" text,
	"canonical_body" json,
	"profile_version_id" text,
	"idempotency_key" text,
	"payload_digest" text,
	"upstream_idempotency_key" text,
	"contact_email" text,
	"contact_phone" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"lease_until" bigint,
	"upstream_key_generation" integer DEFAULT 0 NOT NULL,
	"first_sent_at" bigint,
	"forwarded_at" text,
	"next_attempt_at" bigint,
	"waiting_reason" text,
	"last_error" text,
	"upstream_status" integer,
	"result" json,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL,
	"purged_at" text,
	"settlement_recorded_at" text
);
--> statement-breakpoint
CREATE TABLE "upstream_credentials" (
	"id" text PRIMARY KEY NOT NULL,
	"company_id" text NOT NULL,
	"name" text NOT NULL,
	"key_prefix" text NOT NULL,
	"sealed" text NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"paused_reason" text,
	"created_at" text NOT NULL,
	"rotated_at" text
);
--> statement-breakpoint
CREATE TABLE "vendor_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"company_id" text NOT NULL,
	"name" text NOT NULL,
	"partner_type" text NOT NULL,
	"scopes" json NOT NULL,
	"credential_id" text NOT NULL,
	"lead_profile_version_id" text,
	"appointment_profile_version_id" text,
	"response_mode" text DEFAULT 'async' NOT NULL,
	"secret_digest" text NOT NULL,
	"previous_secret_digest" text,
	"previous_valid_until" text,
	"created_at" text NOT NULL,
	"revoked_at" text
);
--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
	"id" text PRIMARY KEY NOT NULL,
	"delivery_row_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"delivery_id" text NOT NULL,
	"secret_version" integer,
	"started_at" text NOT NULL,
	"status" integer,
	"error" text,
	"response_excerpt" text,
	"latency_ms" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"company_id" text NOT NULL,
	"subscription_id" text NOT NULL,
	"event_id" text NOT NULL,
	"event" text NOT NULL,
	"dedupe_key" text NOT NULL,
	"source_event_id" text,
	"body" text,
	"profile_version_id" text,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"retry_index" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" bigint NOT NULL,
	"last_status" integer,
	"last_error" text,
	"created_at" text NOT NULL,
	"created_at_ms" bigint NOT NULL,
	"delivered_at" text,
	"failed_at" text
);
--> statement-breakpoint
CREATE TABLE "webhook_events" (
	"id" text PRIMARY KEY NOT NULL,
	"company_id" text NOT NULL,
	"event" text NOT NULL,
	"envelope" text NOT NULL,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_subscriptions" (
	"id" text PRIMARY KEY NOT NULL,
	"company_id" text NOT NULL,
	"vendor_key_id" text NOT NULL,
	"url" text NOT NULL,
	"events" json NOT NULL,
	"sealed_secrets" text NOT NULL,
	"outbound_profile_version_id" text,
	"status" text NOT NULL,
	"disabled_reason" text,
	"disabled_at" text,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"failing_since" bigint,
	"paused_until" bigint,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "owner_tokens" ADD CONSTRAINT "owner_tokens_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "owners" ADD CONSTRAINT "owners_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform_webhook_secrets" ADD CONSTRAINT "platform_webhook_secrets_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "profile_versions" ADD CONSTRAINT "profile_versions_profile_id_profiles_id_fk" FOREIGN KEY ("profile_id") REFERENCES "public"."profiles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "profiles" ADD CONSTRAINT "profiles_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "submission_attempts" ADD CONSTRAINT "submission_attempts_submission_id_submissions_id_fk" FOREIGN KEY ("submission_id") REFERENCES "public"."submissions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "submissions" ADD CONSTRAINT "submissions_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "submissions" ADD CONSTRAINT "submissions_vendor_key_id_vendor_keys_id_fk" FOREIGN KEY ("vendor_key_id") REFERENCES "public"."vendor_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "upstream_credentials" ADD CONSTRAINT "upstream_credentials_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vendor_keys" ADD CONSTRAINT "vendor_keys_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vendor_keys" ADD CONSTRAINT "vendor_keys_credential_id_upstream_credentials_id_fk" FOREIGN KEY ("credential_id") REFERENCES "public"."upstream_credentials"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vendor_keys" ADD CONSTRAINT "vendor_keys_lead_profile_version_id_profile_versions_id_fk" FOREIGN KEY ("lead_profile_version_id") REFERENCES "public"."profile_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vendor_keys" ADD CONSTRAINT "vendor_keys_appointment_profile_version_id_profile_versions_id_fk" FOREIGN KEY ("appointment_profile_version_id") REFERENCES "public"."profile_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_row_id_webhook_deliveries_id_fk" FOREIGN KEY ("delivery_row_id") REFERENCES "public"."webhook_deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_subscription_id_webhook_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."webhook_subscriptions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD CONSTRAINT "webhook_subscriptions_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD CONSTRAINT "webhook_subscriptions_vendor_key_id_vendor_keys_id_fk" FOREIGN KEY ("vendor_key_id") REFERENCES "public"."vendor_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD CONSTRAINT "webhook_subscriptions_outbound_profile_version_id_profile_versions_id_fk" FOREIGN KEY ("outbound_profile_version_id") REFERENCES "public"."profile_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mapping_failures_company_id_idx" ON "mapping_failures" USING btree ("company_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "owner_tokens_digest_uq" ON "owner_tokens" USING btree ("token_digest");--> statement-breakpoint
CREATE INDEX "owner_tokens_owner_idx" ON "owner_tokens" USING btree ("owner_id");--> statement-breakpoint
CREATE UNIQUE INDEX "owners_email_uq" ON "owners" USING btree ("email");--> statement-breakpoint
CREATE INDEX "platform_deliveries_keep_until_idx" ON "platform_deliveries" USING btree ("keep_until");--> statement-breakpoint
CREATE INDEX "platform_events_company_received_idx" ON "platform_events" USING btree ("company_id","received_at");--> statement-breakpoint
CREATE UNIQUE INDEX "profile_versions_profile_version_uq" ON "profile_versions" USING btree ("profile_id","version");--> statement-breakpoint
CREATE UNIQUE INDEX "profiles_company_name_uq" ON "profiles" USING btree ("company_id","name");--> statement-breakpoint
CREATE INDEX "profiles_company_idx" ON "profiles" USING btree ("company_id");--> statement-breakpoint
CREATE INDEX "submission_attempts_submission_idx" ON "submission_attempts" USING btree ("submission_id","attempt");--> statement-breakpoint
CREATE UNIQUE INDEX "submissions_key_idem_uq" ON "submissions" USING btree ("vendor_key_id","kind","idempotency_key") WHERE idempotency_key IS NOT NULL;--> statement-breakpoint
CREATE INDEX "submissions_company_id_idx" ON "submissions" USING btree ("company_id","id");--> statement-breakpoint
CREATE INDEX "submissions_company_status_id_idx" ON "submissions" USING btree ("company_id","status","id");--> statement-breakpoint
CREATE INDEX "submissions_status_next_idx" ON "submissions" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "submissions_settlement_owed_idx" ON "submissions" USING btree ("id") WHERE status IN ('forwarded', 'failed') AND settlement_recorded_at IS NULL;--> statement-breakpoint
CREATE INDEX "upstream_credentials_company_idx" ON "upstream_credentials" USING btree ("company_id");--> statement-breakpoint
CREATE INDEX "vendor_keys_company_idx" ON "vendor_keys" USING btree ("company_id");--> statement-breakpoint
CREATE INDEX "webhook_attempts_delivery_idx" ON "webhook_attempts" USING btree ("delivery_row_id","attempt");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_dedupe_subscription_uq" ON "webhook_deliveries" USING btree ("dedupe_key","subscription_id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_pending_subscription_next_idx" ON "webhook_deliveries" USING btree ("subscription_id","next_attempt_at") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_subscription_status_id_idx" ON "webhook_deliveries" USING btree ("subscription_id","status","id");--> statement-breakpoint
CREATE INDEX "webhook_events_created_idx" ON "webhook_events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "webhook_subscriptions_company_idx" ON "webhook_subscriptions" USING btree ("company_id");--> statement-breakpoint
CREATE INDEX "webhook_subscriptions_key_status_idx" ON "webhook_subscriptions" USING btree ("vendor_key_id","status");