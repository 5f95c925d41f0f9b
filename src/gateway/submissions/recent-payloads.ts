import { and, desc, eq, isNotNull } from "drizzle-orm";
import { submissions } from "../../db/schema/index.js";
import type { GatewayContext } from "../context.js";
import { getVendorKeyRow } from "../keys/vendor-keys.js";

/**
 * A key's latest real payloads, as received (raw, before mapping): what the profile editor maps against. Purged and
 * erased payloads are skipped. Another company's key is a 404.
 */
export function recentPayloads({
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
  getVendorKeyRow(ctx, companyId, keyId);
  const where = [
    eq(submissions.companyId, companyId),
    eq(submissions.vendorKeyId, keyId),
    isNotNull(submissions.rawPayload),
  ];
  if (kind) where.push(eq(submissions.kind, kind));
  return ctx.db
    .select({
      submissionId: submissions.id,
      kind: submissions.kind,
      createdAt: submissions.createdAt,
      rawPayload: submissions.rawPayload,
    })
    .from(submissions)
    .where(and(...where))
    .orderBy(desc(submissions.id))
    .limit(limit)
    .all()
    .map(({ rawPayload, ...row }) => ({ ...row, payload: JSON.parse(rawPayload ?? "null") as unknown }));
}
