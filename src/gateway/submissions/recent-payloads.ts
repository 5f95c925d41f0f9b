import type { GatewayContext } from "../context.js";
import { getVendorKeyRow } from "../keys/vendor-keys.js";

/**
 * A key's latest real payloads, as received (raw, before mapping): what the profile editor maps against. Purged and
 * erased payloads are skipped. Another company's key is a 404.
 */
export async function recentPayloads({
  ctx,
  companyId,
  keyId,
  kind,
  limit,
}: {
  ctx: GatewayContext;
  companyId: string;
  keyId: string;
  kind?: "lead" | "appointment";
  limit: number;
}) {
  await getVendorKeyRow(ctx, companyId, keyId);
  return (await ctx.submissions.withRawPayload({ companyId, vendorKeyId: keyId, kind }, limit)).map((row) => ({
    submissionId: row.id,
    kind: row.kind,
    createdAt: row.createdAt,
    payload: JSON.parse(row.rawPayload ?? "null") as unknown,
  }));
}
