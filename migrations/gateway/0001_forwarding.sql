CREATE TABLE `submission_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`submission_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`counted` integer NOT NULL,
	`started_at` text NOT NULL,
	`status` integer,
	`error` text,
	`latency_ms` integer NOT NULL,
	`upstream_request_id` text,
	`upstream_api_version` text,
	`idempotency_key` text,
	FOREIGN KEY (`submission_id`) REFERENCES `submissions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `submission_attempts_submission_idx` ON `submission_attempts` (`submission_id`,`attempt`);--> statement-breakpoint
ALTER TABLE `submissions` ADD `lease_until` integer;--> statement-breakpoint
ALTER TABLE `submissions` ADD `upstream_key_generation` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `submissions` ADD `first_sent_at` integer;--> statement-breakpoint
ALTER TABLE `submissions` ADD `forwarded_at` text;