import type { GatewayContext } from "../context.js";
import { getVendorKeyRow } from "../keys/vendor-keys.js";

export interface KeyCounts {
  keyId: string;
  accepted: number;
  forwarded: number;
  failed: number;
}

/**
 * Per vendor key, the submissions accepted in the last `hours` and how many of those are forwarded and failed now.
 * One grouped range read on `submissions_company_id_idx`.
 */
export async function countSubmissionsByKey({
  ctx,
  companyId,
  hours,
  keyId,
}: {
  ctx: GatewayContext;
  companyId: string;
  hours: number;
  keyId?: string;
}) {
  if (keyId) await getVendorKeyRow(ctx, companyId, keyId);
  const since = ctx.now().getTime() - hours * 3_600_000;
  const rows = await ctx.submissions.countsByKey(companyId, since, keyId);
  const keys: KeyCounts[] = rows.map((r) => ({
    keyId: r.keyId,
    accepted: r.accepted,
    forwarded: Number(r.forwarded ?? 0),
    failed: Number(r.failed ?? 0),
  }));
  return { since: new Date(since).toISOString(), hours, keys };
}
