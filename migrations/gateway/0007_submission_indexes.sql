DROP INDEX `submissions_created_idx`;--> statement-breakpoint
DROP INDEX `submissions_company_email_idx`;--> statement-breakpoint
DROP INDEX `submissions_company_phone_idx`;--> statement-breakpoint
DROP INDEX `submissions_key_idem_uq`;--> statement-breakpoint
CREATE UNIQUE INDEX `submissions_key_idem_uq` ON `submissions` (`vendor_key_id`,`kind`,`idempotency_key`) WHERE idempotency_key IS NOT NULL;