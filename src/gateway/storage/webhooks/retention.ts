import { idFloor } from "../../../ids.js";
import type { StorageHandles } from "../handles.js";

/** Rows deleted per statement: each chunk is its own short transaction, so a large purge never holds the writer. */
const CHUNK = 1_000;

export interface PurgedWebhookHistory {
  webhookDeliveries: number;
  webhookEvents: number;
  platformEvents: number;
}

/**
 * The retention purge of the webhook tables (called by the submissions' one, retention.ts), for what was created
 * before `cutoffMs`:
 * - finished deliveries (delivered, or dead-lettered) with their attempts; pending ones stay, however old (a
 *   disabled subscription's backlog resumes when it is re-enabled);
 * - the events (envelopes) none of whose deliveries remains;
 * - the platform events received: a redelivery that old fails the §6.3.2 timestamp check before the §6.6 lookup.
 * Deliveries are found by id, which carries its creation time (src/ids.ts), so no index is written per delivery
 * for this; an event and its deliveries are created together, at the same time.
 */
export function purgeWebhookHistory(
  { sqlite }: StorageHandles,
  cutoffMs: number,
  companyIds: readonly string[],
): PurgedWebhookHistory {
  const cutoffIso = new Date(cutoffMs).toISOString();
  const beforeCutoff = idFloor("whd", cutoffMs);
  const deliveries = sqlite.prepare(
    `DELETE FROM webhook_deliveries WHERE id IN (
       SELECT id FROM webhook_deliveries WHERE id < ? AND status IN ('delivered', 'failed') LIMIT ${CHUNK})`,
  );
  // What is left before the cutoff is unfinished: the events those deliveries still send are kept.
  const events = sqlite.prepare(
    `DELETE FROM webhook_events WHERE id IN (
       SELECT id FROM webhook_events WHERE created_at < ?
         AND id NOT IN (SELECT event_id FROM webhook_deliveries WHERE id < ?) LIMIT ${CHUNK})`,
  );
  // Per company, on the (company_id, received_at) index; the companies are the tenants' record's to list.
  const platform = sqlite.prepare(
    `DELETE FROM platform_events WHERE rowid IN (
       SELECT rowid FROM platform_events WHERE company_id = ? AND received_at < ? LIMIT ${CHUNK})`,
  );
  return {
    webhookDeliveries: inChunks(() => deliveries.run(beforeCutoff).changes),
    webhookEvents: inChunks(() => events.run(cutoffIso, beforeCutoff).changes),
    platformEvents: companyIds.reduce(
      (sum, companyId) => sum + inChunks(() => platform.run(companyId, cutoffIso).changes),
      0,
    ),
  };
}

function inChunks(deleteChunk: () => number): number {
  let total = 0;
  for (;;) {
    const deleted = deleteChunk();
    total += deleted;
    if (deleted < CHUNK) return total;
  }
}
