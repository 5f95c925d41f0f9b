CREATE TABLE `companies` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`limits` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `mapping_failures` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`vendor_key_id` text NOT NULL,
	`profile_version_id` text NOT NULL,
	`message` text NOT NULL,
	`raw_payload` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `mapping_failures_company_id_idx` ON `mapping_failures` (`company_id`,`id`);--> statement-breakpoint
CREATE TABLE `owner_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`kind` text NOT NULL,
	`name` text,
	`token_digest` text NOT NULL,
	`csrf` text,
	`created_at` text NOT NULL,
	`expires_at` text,
	`revoked_at` text,
	FOREIGN KEY (`owner_id`) REFERENCES `owners`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `owner_tokens_digest_uq` ON `owner_tokens` (`token_digest`);--> statement-breakpoint
CREATE INDEX `owner_tokens_owner_idx` ON `owner_tokens` (`owner_id`);--> statement-breakpoint
CREATE TABLE `owners` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`role` text NOT NULL,
	`password_hash` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `owners_email_uq` ON `owners` (`email`);--> statement-breakpoint
CREATE TABLE `profile_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`profile_id` text NOT NULL,
	`company_id` text NOT NULL,
	`version` integer NOT NULL,
	`expression` text NOT NULL,
	`samples` text NOT NULL,
	`status` text NOT NULL,
	`samples_passed` integer NOT NULL,
	`created_at` text NOT NULL,
	`published_at` text,
	FOREIGN KEY (`profile_id`) REFERENCES `profiles`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `profile_versions_profile_version_uq` ON `profile_versions` (`profile_id`,`version`);--> statement-breakpoint
CREATE TABLE `profiles` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`description` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `profiles_company_name_uq` ON `profiles` (`company_id`,`name`);--> statement-breakpoint
CREATE INDEX `profiles_company_idx` ON `profiles` (`company_id`);--> statement-breakpoint
CREATE TABLE `submissions` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`vendor_key_id` text NOT NULL,
	`credential_id` text NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`raw_payload` text,
	`canonical_body` text,
	`profile_version_id` text,
	`idempotency_key` text,
	`payload_digest` text NOT NULL,
	`upstream_idempotency_key` text,
	`contact_email` text,
	`contact_phone` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`waiting_reason` text,
	`last_error` text,
	`upstream_status` integer,
	`result` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`purged_at` text,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`vendor_key_id`) REFERENCES `vendor_keys`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `submissions_key_idem_uq` ON `submissions` (`vendor_key_id`,`kind`,`idempotency_key`);--> statement-breakpoint
CREATE INDEX `submissions_company_id_idx` ON `submissions` (`company_id`,`id`);--> statement-breakpoint
CREATE INDEX `submissions_company_status_id_idx` ON `submissions` (`company_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `submissions_status_next_idx` ON `submissions` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `submissions_created_idx` ON `submissions` (`created_at`);--> statement-breakpoint
CREATE INDEX `submissions_company_email_idx` ON `submissions` (`company_id`,`contact_email`);--> statement-breakpoint
CREATE INDEX `submissions_company_phone_idx` ON `submissions` (`company_id`,`contact_phone`);--> statement-breakpoint
CREATE TABLE `upstream_credentials` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`name` text NOT NULL,
	`key_prefix` text NOT NULL,
	`sealed` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`paused_reason` text,
	`created_at` text NOT NULL,
	`rotated_at` text,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `upstream_credentials_company_idx` ON `upstream_credentials` (`company_id`);--> statement-breakpoint
CREATE TABLE `vendor_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`name` text NOT NULL,
	`partner_type` text NOT NULL,
	`scopes` text NOT NULL,
	`credential_id` text NOT NULL,
	`lead_profile_version_id` text,
	`appointment_profile_version_id` text,
	`response_mode` text DEFAULT 'async' NOT NULL,
	`secret_digest` text NOT NULL,
	`previous_secret_digest` text,
	`previous_valid_until` text,
	`created_at` text NOT NULL,
	`revoked_at` text,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`credential_id`) REFERENCES `upstream_credentials`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`lead_profile_version_id`) REFERENCES `profile_versions`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`appointment_profile_version_id`) REFERENCES `profile_versions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `vendor_keys_company_idx` ON `vendor_keys` (`company_id`);