/** Outbound webhook requests with the SSRF guard (docs/webhooks-gateway.md). */
export { type AddressKind, classifyAddress } from "./address-ranges.js";
export {
  createGuardedFetch,
  DELIVERY_TIMEOUT_MS,
  type GuardedFetch,
  type GuardedFetchOptions,
  MAX_RESPONSE_BYTES,
  type OutboundRequest,
  type OutboundResponse,
} from "./guarded-fetch.js";
export { type ResolvedAddress, type Resolver, resolveAllowed, systemResolver } from "./guarded-lookup.js";
export { OutboundError, type OutboundErrorCode } from "./outbound-error.js";
export { type CompiledPolicy, checkAddress, compilePolicy, type OutboundPolicy } from "./policy.js";
export { type UrlRefusal, validateWebhookUrl, type WebhookUrlCheck } from "./webhook-url.js";
