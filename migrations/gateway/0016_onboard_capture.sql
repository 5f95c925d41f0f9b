CREATE TABLE `captured_payloads` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`vendor_key_id` text NOT NULL,
	`connection_id` text,
	`kind` text NOT NULL,
	`payload` text NOT NULL,
	`bytes` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`vendor_key_id`) REFERENCES `vendor_keys`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `captured_payloads_key_id_idx` ON `captured_payloads` (`vendor_key_id`,`id`);--> statement-breakpoint
CREATE INDEX `captured_payloads_company_id_idx` ON `captured_payloads` (`company_id`,`id`);--> statement-breakpoint
ALTER TABLE `submissions` ADD `extras` text;--> statement-breakpoint
CREATE INDEX `submissions_company_email_id_idx` ON `submissions` (`company_id`,`contact_email`,`id`) WHERE contact_email IS NOT NULL;--> statement-breakpoint
CREATE INDEX `submissions_company_phone_id_idx` ON `submissions` (`company_id`,`contact_phone`,`id`) WHERE contact_phone IS NOT NULL;--> statement-breakpoint
ALTER TABLE `vendor_keys` ADD `capture_since` text;