CREATE TABLE `idempotency_records` (
	`owner_id` text NOT NULL,
	`idempotency_key` text NOT NULL,
	`operation` text NOT NULL,
	`request_digest` text NOT NULL,
	`response_status` integer NOT NULL,
	`response_body` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`owner_id`, `idempotency_key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_records_expiry_idx` ON `idempotency_records` (`expires_at`);--> statement-breakpoint
CREATE TABLE `install_documents` (
	`id` text PRIMARY KEY NOT NULL,
	`job_id` text NOT NULL,
	`category` text NOT NULL,
	`file_name` text NOT NULL,
	`content_type` text NOT NULL,
	`content` blob NOT NULL,
	`available_at` text NOT NULL,
	FOREIGN KEY (`job_id`) REFERENCES `install_jobs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `install_documents_job_idx` ON `install_documents` (`job_id`,`available_at`,`id`);--> statement-breakpoint
CREATE TABLE `install_evidence` (
	`id` text PRIMARY KEY NOT NULL,
	`job_id` text NOT NULL,
	`installer_company_id` text NOT NULL,
	`key_id` text NOT NULL,
	`kind` text NOT NULL,
	`file_name` text NOT NULL,
	`content_type` text NOT NULL,
	`bytes` integer NOT NULL,
	`sha256` text NOT NULL,
	`uploaded_at` text NOT NULL,
	FOREIGN KEY (`job_id`) REFERENCES `install_jobs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `install_evidence_job_idx` ON `install_evidence` (`job_id`,`uploaded_at`,`id`);--> statement-breakpoint
CREATE TABLE `install_feed` (
	`sequence` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`job_id` text NOT NULL,
	`installer_company_id` text,
	`kind` text NOT NULL,
	`changed_at` text NOT NULL,
	`resource` text NOT NULL,
	FOREIGN KEY (`job_id`) REFERENCES `install_jobs`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`installer_company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `install_feed_installer_sequence_idx` ON `install_feed` (`installer_company_id`,`sequence`);--> statement-breakpoint
CREATE INDEX `install_feed_job_idx` ON `install_feed` (`job_id`,`installer_company_id`);--> statement-breakpoint
CREATE TABLE `install_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`installer_company_id` text,
	`version` integer NOT NULL,
	`status` text NOT NULL,
	`customer` text NOT NULL,
	`scope` text NOT NULL,
	`scope_version` integer NOT NULL,
	`acknowledged_scope_version` integer NOT NULL,
	`schedule` text,
	`blocker_codes` text NOT NULL,
	`technician_assignments` text NOT NULL,
	`commercial` text NOT NULL,
	`cancellation_reason` text,
	`completion_accepted_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`installer_company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `technicians` (
	`id` text PRIMARY KEY NOT NULL,
	`installer_company_id` text NOT NULL,
	`display_name` text NOT NULL,
	`active` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`installer_company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `technicians_company_idx` ON `technicians` (`installer_company_id`,`id`);--> statement-breakpoint
ALTER TABLE `events` ADD `partner_company_id` text REFERENCES companies(id);--> statement-breakpoint
ALTER TABLE `events` ADD `origin_key_id` text;