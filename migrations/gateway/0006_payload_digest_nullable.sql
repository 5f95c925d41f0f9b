PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_submissions` (
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
	`payload_digest` text,
	`upstream_idempotency_key` text,
	`contact_email` text,
	`contact_phone` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`lease_until` integer,
	`upstream_key_generation` integer DEFAULT 0 NOT NULL,
	`first_sent_at` integer,
	`forwarded_at` text,
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
INSERT INTO `__new_submissions`("id", "company_id", "vendor_key_id", "credential_id", "kind", "status", "raw_payload", "canonical_body", "profile_version_id", "idempotency_key", "payload_digest", "upstream_idempotency_key", "contact_email", "contact_phone", "attempts", "lease_until", "upstream_key_generation", "first_sent_at", "forwarded_at", "next_attempt_at", "waiting_reason", "last_error", "upstream_status", "result", "created_at", "updated_at", "purged_at") SELECT "id", "company_id", "vendor_key_id", "credential_id", "kind", "status", "raw_payload", "canonical_body", "profile_version_id", "idempotency_key", "payload_digest", "upstream_idempotency_key", "contact_email", "contact_phone", "attempts", "lease_until", "upstream_key_generation", "first_sent_at", "forwarded_at", "next_attempt_at", "waiting_reason", "last_error", "upstream_status", "result", "created_at", "updated_at", "purged_at" FROM `submissions`;--> statement-breakpoint
DROP TABLE `submissions`;--> statement-breakpoint
ALTER TABLE `__new_submissions` RENAME TO `submissions`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `submissions_key_idem_uq` ON `submissions` (`vendor_key_id`,`kind`,`idempotency_key`);--> statement-breakpoint
CREATE INDEX `submissions_company_id_idx` ON `submissions` (`company_id`,`id`);--> statement-breakpoint
CREATE INDEX `submissions_company_status_id_idx` ON `submissions` (`company_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `submissions_status_next_idx` ON `submissions` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `submissions_created_idx` ON `submissions` (`created_at`);--> statement-breakpoint
CREATE INDEX `submissions_company_email_idx` ON `submissions` (`company_id`,`contact_email`);--> statement-breakpoint
CREATE INDEX `submissions_company_phone_idx` ON `submissions` (`company_id`,`contact_phone`);