import { badRequest, notFound } from "../../../http/errors.js";
import { validateWebhookUrl } from "../../../net/index.js";
import type { GatewayContext } from "../../context.js";
import type { PartnerType } from "../../storage/vendor-keys/index.js";
import { allowedEvents } from "../catalogue.js";

/**
 * The endpoint URL under the mode's policy (SSRF, docs/webhooks-gateway.md: live → https and public addresses; sandbox → loopback too).
 * Names are resolved and checked again at every connection (src/net), which is the check that counts.
 */
export function checkEndpointUrl(ctx: GatewayContext, url: string): string {
  const check = validateWebhookUrl(url, ctx.running.outboundPolicy);
  if (!check.ok) throw badRequest(`url: ${check.message}`, { field: "url", reason: check.reason });
  return check.url.toString();
}

/** §1: only the event groups of the key's partner type; at least one, no repeats. */
export function checkEvents(partnerType: PartnerType, events: readonly string[]): string[] {
  const allowed = allowedEvents(partnerType);
  if (events.length === 0) throw badRequest("events: at least one event is required", { field: "events" });
  for (const event of events) {
    if (!allowed.includes(event)) {
      throw badRequest(`events: ${event} is not available to a ${partnerType} key (allowed: ${allowed.join(", ")})`, {
        field: "events",
      });
    }
  }
  return [...new Set(events)];
}

/** A published outbound profile version of the same company (like `assertBindable` for lead/appointment keys). */
export async function checkOutboundProfile(
  ctx: GatewayContext,
  companyId: string,
  versionId: string | null,
): Promise<void> {
  if (versionId === null) return;
  const row = await ctx.profiles.versionWithKind(versionId);
  if (!row || row.version.companyId !== companyId) throw notFound("profile version not found");
  const field = "outboundProfileVersionId";
  if (row.kind !== "outbound") throw badRequest(`${field}: a ${row.kind} profile cannot map webhooks`, { field });
  if (row.version.status !== "published")
    throw badRequest(`${field}: only a published version can be bound`, { field });
}
