-- Envelopes stored once per event (0003): copy each event's envelope out of its deliveries before 0005 drops the
-- column. Every delivery of one event holds the same envelope; the earliest delivery gives the creation time.
INSERT OR IGNORE INTO `webhook_events` (`id`, `company_id`, `event`, `envelope`, `created_at`)
SELECT `event_id`, `company_id`, `event`, `envelope`, min(`created_at`) FROM `webhook_deliveries` GROUP BY `event_id`;
