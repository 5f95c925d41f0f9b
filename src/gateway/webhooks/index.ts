/** Gateway webhooks (spec §6, docs/webhooks-gateway.md): the platform receiver, vendor subscriptions, fan-out and delivery. */

export type { PurgedWebhookHistory } from "../storage/webhooks/index.js";
export { EVENTS_BY_PARTNER_TYPE, TEST_EVENT } from "./catalogue.js";
export { onSubmissionSettled, recordSettlement, settlementRecorder } from "./on-submission-settled.js";
export { platformReceiverRoute } from "./platform/receiver-route.js";
export { repairSettlements } from "./repair-settlements.js";
export { type RunningWebhooks, startWebhooks, type WebhookOptions } from "./start-webhooks.js";
