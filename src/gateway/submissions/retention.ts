import { and, eq, inArray, isNotNull, lt } from "drizzle-orm";
import { mappingFailures, submissions } from "../../db/schema/index.js";
import { badRequest } from "../../http/errors.js";
import { idFloor } from "../../ids.js";
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
        // Ids are time-ordered and made with createdAt's clock reading: a range on the primary key, so intake's
        // inserts need no created_at index.
        lt(submissions.id, idFloor("sub", cutoffMs)),
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

/** Submissions of a company scanned per step of an erasure (one transaction, then the event loop's turn). */
export const ERASURE_CHUNK = 2_000;

/**
 * Erases a person's data (by email or phone) from a company's submissions: raw payload and canonical body are
 * dropped; lead submissions not yet forwarded fail with the reason, since there is nothing left to send.
 *
 * The contact columns have no index of their own: each would cost every intake insert (about 3 µs apiece) for an
 * operation an owner runs rarely. The company's submissions are scanned instead, newest first on the (company, id)
 * index, `ERASURE_CHUNK` rows per step with the event loop's turn between steps, so a large company never holds the
 * thread serving intake. Each step is a transaction; a crash midway leaves the rest for a rerun (erasure is
 * idempotent).
 */
export async function erasePerson({
  ctx,
  companyId,
  input,
}: {
  ctx: GatewayContext;
  companyId: string;
  input: { email?: string; phone?: string };
}): Promise<{ erased: number }> {
  const email = input.email?.trim().toLowerCase();
  const phone = input.phone?.replace(/[^0-9]/g, "");
  if (!email && !phone) throw badRequest("email or phone is required", { field: "email" });
  const now = ctx.now().toISOString();
  const scan = ctx.sqlite.prepare<
    [string, string, number],
    { id: string; status: string; email: string | null; phone: string | null }
  >(
    `SELECT id, status, contact_email AS email, contact_phone AS phone FROM submissions
     WHERE company_id = ? AND id < ? ORDER BY id DESC LIMIT ?`,
  );
  let erased = 0;
  // Above every id: the scan walks down from the newest.
  let before = "\uffff";
  for (;;) {
    const step = ctx.sqlite.transaction(() => {
      const rows = scan.all(companyId, before, ERASURE_CHUNK);
      const matching = rows.filter((row) => (email && row.email === email) || (phone && row.phone === phone));
      eraseRows(ctx, matching, now);
      return { scanned: rows.length, last: rows.at(-1)?.id, erased: matching.length };
    })();
    erased += step.erased;
    if (step.scanned < ERASURE_CHUNK || step.last === undefined) return { erased };
    before = step.last;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function eraseRows(ctx: GatewayContext, rows: { id: string; status: string }[], now: string): void {
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
}
