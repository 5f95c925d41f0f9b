/**
 * The gateway's schema for PostgreSQL (DATABASE_URL): the same tables, columns and indexes as `../schema/`, whose
 * rows the stores return unchanged (test/db/schema-parity.test.ts holds the two equal; docs/decisions.md, D-226).
 */
export { bookedAppointments } from "./booked-appointments.js";
export { companies } from "./companies.js";
export { mappingFailures } from "./mapping-failures.js";
export { ownerTokens } from "./owner-tokens.js";
export { owners } from "./owners.js";
export { platformDeliveries } from "./platform-deliveries.js";
export { platformEvents } from "./platform-events.js";
export { platformWebhookSecrets } from "./platform-webhook-secrets.js";
export { profileVersions } from "./profile-versions.js";
export { profiles } from "./profiles.js";
export { sourcedLeads } from "./sourced-leads.js";
export { submissionAttempts } from "./submission-attempts.js";
export { submissions } from "./submissions.js";
export { tableVersions } from "./table-versions.js";
export { upstreamCredentials } from "./upstream-credentials.js";
export { vendorKeys } from "./vendor-keys.js";
export { webhookAttempts } from "./webhook-attempts.js";
export { webhookDeliveries } from "./webhook-deliveries.js";
export { webhookEvents } from "./webhook-events.js";
export { webhookSubscriptions } from "./webhook-subscriptions.js";
