CREATE TABLE `booked_appointments` (
	`company_id` text NOT NULL,
	`appointment_id` text NOT NULL,
	`vendor_key_id` text NOT NULL,
	`submission_id` text NOT NULL,
	`lead_id` text,
	`created_at` text NOT NULL,
	PRIMARY KEY(`company_id`, `appointment_id`)
);
--> statement-breakpoint
CREATE TABLE `platform_deliveries` (
	`company_id` text NOT NULL,
	`delivery_id` text NOT NULL,
	`keep_until` integer NOT NULL,
	PRIMARY KEY(`company_id`, `delivery_id`)
);
--> statement-breakpoint
CREATE INDEX `platform_deliveries_keep_until_idx` ON `platform_deliveries` (`keep_until`);--> statement-breakpoint
CREATE TABLE `platform_events` (
	`company_id` text NOT NULL,
	`id` text NOT NULL,
	`event` text NOT NULL,
	`resource_type` text NOT NULL,
	`resource_id` text NOT NULL,
	`resource_version` integer NOT NULL,
	`occurred_at` text NOT NULL,
	`body` text NOT NULL,
	`delivery_id` text NOT NULL,
	`fanned_out` integer NOT NULL,
	`received_at` text NOT NULL,
	PRIMARY KEY(`company_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `platform_events_company_received_idx` ON `platform_events` (`company_id`,`received_at`);--> statement-breakpoint
CREATE TABLE `platform_webhook_secrets` (
	`company_id` text PRIMARY KEY NOT NULL,
	`sealed_secrets` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `sourced_leads` (
	`company_id` text NOT NULL,
	`lead_id` text NOT NULL,
	`vendor_key_id` text,
	`contact_submission_id` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`company_id`, `lead_id`)
);
--> statement-breakpoint
CREATE TABLE `webhook_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`delivery_row_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`delivery_id` text NOT NULL,
	`secret_version` integer,
	`started_at` text NOT NULL,
	`status` integer,
	`error` text,
	`response_excerpt` text,
	`latency_ms` integer NOT NULL,
	FOREIGN KEY (`delivery_row_id`) REFERENCES `webhook_deliveries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_delivery_idx` ON `webhook_attempts` (`delivery_row_id`,`attempt`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`subscription_id` text NOT NULL,
	`event_id` text NOT NULL,
	`event` text NOT NULL,
	`dedupe_key` text NOT NULL,
	`source_event_id` text,
	`envelope` text NOT NULL,
	`body` text,
	`profile_version_id` text,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`retry_index` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_status` integer,
	`last_error` text,
	`created_at` text NOT NULL,
	`created_at_ms` integer NOT NULL,
	`delivered_at` text,
	`failed_at` text,
	FOREIGN KEY (`subscription_id`) REFERENCES `webhook_subscriptions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_subscription_dedupe_uq` ON `webhook_deliveries` (`subscription_id`,`dedupe_key`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_status_subscription_next_idx` ON `webhook_deliveries` (`status`,`subscription_id`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_subscription_id_idx` ON `webhook_deliveries` (`subscription_id`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_subscription_status_created_idx` ON `webhook_deliveries` (`subscription_id`,`status`,`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`vendor_key_id` text NOT NULL,
	`url` text NOT NULL,
	`events` text NOT NULL,
	`sealed_secrets` text NOT NULL,
	`outbound_profile_version_id` text,
	`status` text NOT NULL,
	`disabled_reason` text,
	`disabled_at` text,
	`consecutive_failures` integer DEFAULT 0 NOT NULL,
	`failing_since` integer,
	`paused_until` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`vendor_key_id`) REFERENCES `vendor_keys`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`outbound_profile_version_id`) REFERENCES `profile_versions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_subscriptions_company_idx` ON `webhook_subscriptions` (`company_id`);--> statement-breakpoint
CREATE INDEX `webhook_subscriptions_key_status_idx` ON `webhook_subscriptions` (`vendor_key_id`,`status`);