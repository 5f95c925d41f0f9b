CREATE TABLE `alert_notices` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`alert_id` text NOT NULL,
	`event` text NOT NULL,
	`event_id` text NOT NULL,
	`reminder` integer NOT NULL,
	`channel` text NOT NULL,
	`attempts` integer NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_error` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`alert_id`) REFERENCES `alerts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `alert_notices_due_idx` ON `alert_notices` (`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `proof_failure_minutes` (
	`connection_id` text NOT NULL,
	`company_id` text NOT NULL,
	`minute` integer NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`connection_id`, `minute`),
	FOREIGN KEY (`connection_id`) REFERENCES `connections`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `proof_failure_minutes_company_idx` ON `proof_failure_minutes` (`company_id`,`minute`);