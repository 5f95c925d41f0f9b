CREATE TABLE `webhook_events` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`event` text NOT NULL,
	`envelope` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_events_created_idx` ON `webhook_events` (`created_at`);--> statement-breakpoint
DROP INDEX `webhook_deliveries_subscription_dedupe_uq`;--> statement-breakpoint
DROP INDEX `webhook_deliveries_status_subscription_next_idx`;--> statement-breakpoint
DROP INDEX `webhook_deliveries_subscription_id_idx`;--> statement-breakpoint
DROP INDEX `webhook_deliveries_subscription_status_created_idx`;--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_dedupe_subscription_uq` ON `webhook_deliveries` (`dedupe_key`,`subscription_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_pending_subscription_next_idx` ON `webhook_deliveries` (`subscription_id`,`next_attempt_at`) WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX `webhook_deliveries_subscription_status_id_idx` ON `webhook_deliveries` (`subscription_id`,`status`,`id`);