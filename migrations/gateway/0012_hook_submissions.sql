ALTER TABLE `submissions` ADD `connection_id` text;--> statement-breakpoint
ALTER TABLE `submissions` ADD `held_reason` text;--> statement-breakpoint
ALTER TABLE `submissions` ADD `note` text;--> statement-breakpoint
ALTER TABLE `submissions` ADD `vendor_record_id` text;--> statement-breakpoint
ALTER TABLE `submissions` ADD `record_action` text;--> statement-breakpoint
ALTER TABLE `submissions` ADD `test` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `submissions` ADD `fetch_target` text;--> statement-breakpoint
CREATE INDEX `submissions_company_connection_id_idx` ON `submissions` (`company_id`,`connection_id`,`id`) WHERE connection_id IS NOT NULL;