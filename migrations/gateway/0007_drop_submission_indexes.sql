DROP INDEX `submissions_created_idx`;--> statement-breakpoint
DROP INDEX `submissions_company_email_idx`;--> statement-breakpoint
DROP INDEX `submissions_company_phone_idx`;