ALTER TABLE `submissions` ADD `trace_parent` text;--> statement-breakpoint
ALTER TABLE `webhook_events` ADD `trace_parent` text;