CREATE TABLE `connections` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`vendor_key_id` text NOT NULL,
	`name` text NOT NULL,
	`preset` text,
	`settings` text,
	`profile_kind` text NOT NULL,
	`sealed_secrets` text NOT NULL,
	`vendor_api_base` text,
	`token_digest` text NOT NULL,
	`previous_token_digest` text,
	`previous_valid_until` text,
	`proof_failures` integer DEFAULT 0 NOT NULL,
	`last_proof_failure_at` text,
	`last_proof_failure` text,
	`created_at` text NOT NULL,
	`revoked_at` text,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`vendor_key_id`) REFERENCES `vendor_keys`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `connections_token_digest_uq` ON `connections` (`token_digest`);--> statement-breakpoint
CREATE INDEX `connections_previous_token_digest_idx` ON `connections` (`previous_token_digest`) WHERE previous_token_digest IS NOT NULL;--> statement-breakpoint
CREATE INDEX `connections_company_idx` ON `connections` (`company_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `connections_vendor_key_uq` ON `connections` (`vendor_key_id`);