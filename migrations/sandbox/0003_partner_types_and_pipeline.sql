CREATE TABLE `partners` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`completed_projects_opt_in` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `partners_company_idx` ON `partners` (`company_id`,`id`);--> statement-breakpoint
CREATE TABLE `sales_pipelines` (
	`lead_id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`project_id` text,
	`stage` text NOT NULL,
	`version` integer NOT NULL,
	`quote` text,
	`deposit` text,
	`invoices` text NOT NULL,
	`rebate` text,
	`completed_at` text,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`lead_id`) REFERENCES `leads`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `api_keys` ADD `partner_id` text REFERENCES partners(id);--> statement-breakpoint
CREATE INDEX `api_keys_partner_idx` ON `api_keys` (`partner_id`);--> statement-breakpoint
ALTER TABLE `webhook_subscriptions` ADD `partner_id` text REFERENCES partners(id);--> statement-breakpoint
ALTER TABLE `webhook_subscriptions` ADD `schema_versions` text DEFAULT '{}' NOT NULL;