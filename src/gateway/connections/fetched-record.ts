import type { GatewayContext } from "../context.js";
import type { FetchChange, SubmissionRow } from "../storage/submissions/index.js";
import type { JsonValue } from "./bodies/index.js";
import { mapPayload, vendorKeyOf } from "./hook-mapping.js";
import { heldKey } from "./hook-records.js";
import { type Base, mappedRows } from "./hook-rows.js";
import type { ResolvedConnection } from "./resolved-connection.js";
import { forwardQueued, rowsToWrite } from "./store-hook-rows.js";

/**
 * Stores a record read back from the vendor's API for a `fetching` row (docs/connections.md, "Fetch after notify";
 * D-323): mapped by the connection's profile with the notification's target bound as `$notification`, its rows made
 * exactly as a hook's are (hook-rows.ts: records, chaining, test and change notes; store-hook-rows.ts: a record already
 * stored is the vendor's repeat). The fetching row becomes the first row to write — its id kept, so what waited on it
 * and the owner's log go on naming it — and the others are inserted beside it, in one transaction, under the fetch's
 * lease. When every record is stored already, the row is `noted` as the vendor's repeat. The rows written, or
 * undefined when the lease was no longer this fetch's (nothing written).
 */
export async function storeFetchedRecord(
  ctx: GatewayContext,
  connection: ResolvedConnection,
  fetching: SubmissionRow,
  leaseUntil: number,
  record: JsonValue,
): Promise<SubmissionRow[] | undefined> {
  const key = await vendorKeyOf(ctx, connection);
  const target = fetching.fetchTarget ?? {};
  const now = ctx.now();
  const base: Base = {
    key,
    connectionId: connection.row.id,
    rawPayload: JSON.stringify(record),
    test: fetching.test,
    now,
    traceParent: fetching.traceParent,
    // Two notified records the API answers alike are two payloads: held apart, each with its own target.
    heldKey: heldKey({ notification: target, record }),
  };
  const mapping = await mapPayload(ctx, key, connection, record, { bindings: { notification: target } });
  const planned = mappedRows(ctx, base, connection.row.profileKind, mapping);
  const [first, ...others] = await rowsToWrite(ctx, key, planned, fetching.id);
  // The vendor's repeat notification of what is stored already (Yelp's NEW_EVENT for each message of a lead): it
  // leaves nothing behind, as a hook's retry stores nothing (D-305, D-323).
  if (!first) return (await ctx.submissions.dropFetch(fetching.id, leaseUntil)) ? [] : undefined;
  const change: FetchChange = recordFields(first);
  const written = await ctx.transaction(async (tx) => {
    const ended = await tx.submissions.endFetch(fetching.id, leaseUntil, now.getTime(), change);
    if (!ended) return undefined;
    for (const row of others) await tx.submissions.insert(row);
    return [ended, ...others];
  });
  if (written) forwardQueued(ctx, written);
  return written;
}

/** What the fetching row takes of the first row to write: all of it but what it already is (id, tenant, times). */
function recordFields(row: SubmissionRow): FetchChange {
  return {
    kind: row.kind,
    status: row.status,
    rawPayload: row.rawPayload,
    canonicalBody: row.canonicalBody,
    profileVersionId: row.profileVersionId,
    idempotencyKey: row.idempotencyKey,
    payloadDigest: row.payloadDigest,
    upstreamIdempotencyKey: row.upstreamIdempotencyKey,
    contactEmail: row.contactEmail,
    contactPhone: row.contactPhone,
    heldReason: row.heldReason,
    note: row.note,
    vendorRecordId: row.vendorRecordId,
    recordAction: row.recordAction,
    test: row.test,
    // Forwarding counts its own attempts from none; the fetch's were the fetch's.
    attempts: 0,
    nextAttemptAt: null,
    lastError: null,
  };
}
