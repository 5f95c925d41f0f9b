import { idFloor } from "../../ids.js";
import type { GatewayContext } from "../context.js";
import { type Enqueued, notifyEnqueued } from "./enqueue.js";
import { recordSettlement } from "./on-submission-settled.js";

const DAY_MS = 86_400_000;
/** Settled submissions recorded per transaction of the repair. */
const CHUNK = 500;

/**
 * At start: records what settled submissions are owed but never had recorded — settled before forwarding recorded it
 * in the outcome's transaction (an older version enqueued the webhooks in a second transaction, which a crash or a
 * busy database could lose). Idempotent through the deliveries' dedupe keys and the records' upserts, so a delivery
 * that exists is not made twice. Only subscriptions that existed when the submission settled get one. A submission
 * settled longer ago than the retention period is only marked: its deliveries may have been purged since, and sending
 * it again then would be a second delivery, not a repair.
 *
 * Reads the partial index of unrecorded settled rows (SubmissionStore.settlementsOwed), CHUNK at a time, one
 * immediate transaction each; with several processes on one database, each records and marks a row at most once in
 * effect. Runs before forwarding starts, and wakes the webhook dispatcher for what it enqueued. A chunk meeting an
 * outage of the database is tried again until it commits (D-330): a start is never aborted by a blip, and a chunk whose
 * commit went through unheard is harmless to record again (the dedupe keys, the upserts).
 */
export async function repairSettlements(ctx: GatewayContext): Promise<{ recorded: number; deliveries: number }> {
  const nowMs = ctx.now().getTime();
  const recentFrom = idFloor("sub", nowMs - ctx.settings.retentionDays * DAY_MS);
  const retry = ctx.outages.retry({ name: "settlement repair" });
  let recorded = 0;
  let deliveries = 0;
  for (;;) {
    const enqueued = await retry.run(() => repairChunk(ctx, recentFrom, nowMs));
    if (enqueued === undefined) break;
    recorded += enqueued.rows;
    deliveries += enqueued.made.length;
    notifyEnqueued(ctx, enqueued.made, nowMs);
  }
  if (recorded > 0) ctx.log.info({ recorded, deliveries }, "settlements recorded at start");
  return { recorded, deliveries };
}

/** One chunk in one immediate transaction: the rows recorded and what they enqueued; undefined when none is left. */
function repairChunk(
  ctx: GatewayContext,
  recentFrom: string,
  nowMs: number,
): Promise<{ rows: number; made: Enqueued[] } | undefined> {
  return ctx.transaction(async (tx) => {
    const rows = await tx.submissions.settlementsOwed(CHUNK);
    if (rows.length === 0) return undefined;
    const made: Enqueued[] = [];
    for (const row of rows) {
      if (row.id >= recentFrom) made.push(...(await recordSettlement(tx, row, nowMs, { subscribedBy: row.updatedAt })));
      await tx.submissions.markSettlementRecorded(row.id, nowMs);
    }
    return { rows: rows.length, made };
  }, "immediate");
}
