CREATE TABLE `owner_accounts` (
	`company_id` text PRIMARY KEY NOT NULL,
	`password_digest` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `owner_sessions` (
	`token_digest` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `owner_sessions_company_idx` ON `owner_sessions` (`company_id`);--> statement-breakpoint
CREATE TABLE `webhook_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`delivery_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`secret_version` integer NOT NULL,
	`timestamp` integer NOT NULL,
	`response_status` integer,
	`error` text,
	`duration_ms` integer NOT NULL,
	`attempted_at` text NOT NULL,
	FOREIGN KEY (`delivery_id`) REFERENCES `webhook_deliveries`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_delivery_idx` ON `webhook_attempts` (`delivery_id`,`attempt`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`subscription_id` text NOT NULL,
	`event_id` text NOT NULL,
	`event` text NOT NULL,
	`body` text NOT NULL,
	`status` text NOT NULL,
	`attempt_count` integer NOT NULL,
	`next_attempt_at` integer,
	`redelivery_of` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`subscription_id`) REFERENCES `webhook_subscriptions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due_idx` ON `webhook_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_subscription_idx` ON `webhook_deliveries` (`subscription_id`,`status`,`id`);--> statement-breakpoint
CREATE TABLE `webhook_subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`url` text NOT NULL,
	`events` text NOT NULL,
	`partner_type` text NOT NULL,
	`partner_key_ids` text NOT NULL,
	`secrets` text NOT NULL,
	`version` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_subscriptions_company_idx` ON `webhook_subscriptions` (`company_id`,`id`);