import type { SubmissionRow, SubmissionStore } from "../storage/submissions/index.js";
import { upstreamKey } from "../submissions/upstream-key.js";

export type UpstreamRequest = { body: Record<string, unknown>; idempotencyKey: string | null } | { fail: string };

/**
 * The body sent upstream: the canonical body, with a chained lead's real `lead_…` id and the upstream idempotency key
 * derived per vendor key (§8), or why it cannot be sent (no such lead of its key, its lead failed, or merged into a
 * sold project). A `sub_…` reference is followed within the appointment's own key only (SubmissionStore.leadOf).
 */
export async function upstreamRequest(store: SubmissionStore, row: SubmissionRow): Promise<UpstreamRequest> {
  const body = { ...(row.canonicalBody ?? {}) };
  if (row.kind === "lead") return { body, idempotencyKey: null };
  const leadId = String(body.leadId ?? "");
  if (leadId.startsWith("sub_")) {
    const lead = await store.leadOf(row, leadId);
    if (!lead) return { fail: `leadId: no lead submission ${leadId} of this key` };
    const result = lead.result as { leadId?: string; projectId?: string } | null;
    if (lead.status === "failed") return { fail: `lead submission ${leadId} failed: ${lead.lastError ?? "unknown"}` };
    if (!result?.leadId) {
      return {
        fail: `lead submission ${leadId} merged into sold project ${result?.projectId ?? "?"} without a leadId`,
      };
    }
    body.leadId = result.leadId;
  }
  const idempotencyKey =
    row.upstreamIdempotencyKey ?? upstreamKey(row.vendorKeyId, String(body.idempotencyKey), row.upstreamKeyGeneration);
  body.idempotencyKey = idempotencyKey;
  return { body, idempotencyKey };
}

/** The lead submission (`sub_…`) an appointment names, if it names one (appointment chaining). */
export function chainedLead(row: Pick<SubmissionRow, "kind" | "canonicalBody">): string | undefined {
  if (row.kind !== "appointment") return undefined;
  const leadId = String(row.canonicalBody?.leadId ?? "");
  return leadId.startsWith("sub_") ? leadId : undefined;
}
