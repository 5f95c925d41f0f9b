/** Gateway webhooks (spec §6, docs/webhooks-gateway.md): the platform receiver, vendor subscriptions, fan-out and delivery. */
export { EVENTS_BY_PARTNER_TYPE, TEST_EVENT } from "./catalogue.js";
export { onSubmissionSettled, recordSettlement, settlementRecorder } from "./on-submission-settled.js";
export { type PurgedWebhookHistory, purgeWebhookHistory } from "./purge-history.js";
export { repairSettlements } from "./repair-settlements.js";
export { webhookRoutes } from "./routes.js";
export { type RunningWebhooks, startWebhooks, type WebhookOptions } from "./start-webhooks.js";
