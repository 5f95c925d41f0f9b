import { and, eq, inArray, isNotNull, lt, or } from "drizzle-orm";
import { mappingFailures, submissions } from "../../db/schema/index.js";
import { badRequest } from "../../http/errors.js";
import type { GatewayContext } from "../context.js";
import { type PurgedWebhookHistory, purgeWebhookHistory } from "../webhooks/index.js";

const DAY_MS = 86_400_000;

/**
 * Drops raw payloads older than the retention period. Only finished submissions are purged: a queued one still
 * needs its payload for a redrive with another profile version. The webhook history of the same age goes too
 * (finished deliveries, their events, the platform events received: purge-history.ts).
 */
export function purgeExpiredPayloads({ ctx }: { ctx: GatewayContext }): { purged: number } & PurgedWebhookHistory {
  const now = ctx.now();
  const cutoffMs = now.getTime() - ctx.settings.retentionDays * DAY_MS;
  const cutoff = new Date(cutoffMs).toISOString();
  const purged = ctx.db
    .update(submissions)
    .set({ rawPayload: null, purgedAt: now.toISOString() })
    .where(
      and(
        lt(submissions.createdAt, cutoff),
        isNotNull(submissions.rawPayload),
        inArray(submissions.status, ["forwarded", "failed"]),
      ),
    )
    .run().changes;
  ctx.db
    .update(mappingFailures)
    .set({ rawPayload: null })
    .where(and(lt(mappingFailures.createdAt, cutoff), isNotNull(mappingFailures.rawPayload)))
    .run();
  return { purged, ...purgeWebhookHistory({ ctx, cutoffMs }) };
}

/**
 * Erases a person's data (by email or phone) from a company's submissions: raw payload and canonical body are
 * dropped; lead submissions not yet forwarded fail with the reason, since there is nothing left to send.
 */
export function erasePerson({
  ctx,
  companyId,
  input,
}: {
  ctx: GatewayContext;
  companyId: string;
  input: { email?: string; phone?: string };
}): { erased: number } {
  const email = input.email?.trim().toLowerCase();
  const phone = input.phone?.replace(/[^0-9]/g, "");
  if (!email && !phone) throw badRequest("email or phone is required", { field: "email" });
  const match = or(
    email ? eq(submissions.contactEmail, email) : undefined,
    phone ? eq(submissions.contactPhone, phone) : undefined,
  );
  const now = ctx.now().toISOString();
  return ctx.sqlite.transaction(() => {
    const rows = ctx.db
      .select({ id: submissions.id, status: submissions.status })
      .from(submissions)
      .where(and(eq(submissions.companyId, companyId), match))
      .all();
    for (const row of rows) {
      const finished = row.status === "forwarded" || row.status === "failed";
      ctx.db
        .update(submissions)
        .set({
          rawPayload: null,
          canonicalBody: null,
          contactEmail: null,
          contactPhone: null,
          purgedAt: now,
          updatedAt: now,
          ...(finished ? {} : { status: "failed" as const, lastError: "erased at the owner's request" }),
        })
        .where(eq(submissions.id, row.id))
        .run();
    }
    return { erased: rows.length };
  })();
}
