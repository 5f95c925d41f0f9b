import type { GatewayContext } from "../context.js";
import type { SubmissionRow } from "../storage/submissions/index.js";
import type { VendorKeyRow } from "../storage/vendor-keys/index.js";
import type { Planned } from "./hook-rows.js";

/**
 * Writes the planned rows, each once: a row whose key is already there with the same content is the vendor's retry
 * (kept as it is); with other content, a lead is sent again (§4.2 rule 1: re-sending merges) and anything else is a
 * change the platform cannot take, stored as `noted`. One row goes through intake's group commit; several (a lead and
 * its appointment) in one transaction.
 */
export async function storeRows(ctx: GatewayContext, key: VendorKeyRow, planned: Planned[]): Promise<void> {
  const [only] = planned;
  if (planned.length === 1 && only && !only.lead) return storeOne(ctx, key, only);
  const rows = await rowsToWrite(ctx, key, planned);
  if (rows.length === 0) return;
  try {
    if (rows.length === 1 && rows[0]) await ctx.submissions.insert(rows[0]);
    else
      await ctx.transaction(async (tx) => {
        for (const row of rows) await tx.submissions.insert(row);
      });
  } catch (error) {
    // The vendor's retry, committed by another request between the look and the write: then every row is there.
    const missing = await Promise.all(
      rows.map((row) => ctx.submissions.findByIdempotencyKey(key.id, row.kind, row.idempotencyKey ?? "")),
    );
    if (missing.some((found) => found === undefined)) throw error;
    return;
  }
  forwardQueued(ctx, rows);
}

/**
 * One row (most payloads: one lead, or one held payload), written without a look first: its key's unique index says
 * whether it is stored already, and only then is it read (the vendor's retry, or a change under the same id).
 */
async function storeOne(ctx: GatewayContext, key: VendorKeyRow, entry: Planned, tries = 1): Promise<void> {
  try {
    await ctx.submissions.insert(entry.row);
  } catch (error) {
    const stored = await ctx.submissions.findByIdempotencyKey(key.id, entry.row.kind, entry.row.idempotencyKey ?? "");
    // The row that held the key let it go between the write and the look: a fetch that ended took its record's key
    // (fetched-record.ts). Written again, it is now what it is: new, or the vendor's repeat of a stored record.
    if (stored === undefined && tries < 3) return storeOne(ctx, key, entry, tries + 1);
    if (stored === undefined) throw error;
    const row = await settledRow(ctx, key, entry);
    if (!row) return;
    await ctx.submissions.insert(row);
    forwardQueued(ctx, [row]);
    return;
  }
  forwardQueued(ctx, [entry.row]);
}

/**
 * The rows to write of the planned ones, in order, each checked against what is stored (settledRow) and its lead's id
 * filled in. `firstId`: the id the first row to write takes (a fetched record's: the row that waited for it), given
 * before the rows after it read it, so an appointment chained on that lead names it.
 */
export async function rowsToWrite(
  ctx: GatewayContext,
  key: VendorKeyRow,
  planned: Planned[],
  firstId?: string,
): Promise<SubmissionRow[]> {
  const rows: SubmissionRow[] = [];
  for (const entry of planned) {
    const row = await settledRow(ctx, key, entry);
    if (!row) continue;
    if (firstId !== undefined && rows.length === 0) row.id = firstId;
    rows.push(row);
  }
  return rows;
}

/** Forwarding hears of what was written queued (repeats are harmless). */
export function forwardQueued(ctx: GatewayContext, rows: readonly SubmissionRow[]): void {
  for (const row of rows) if (row.status === "queued") ctx.running.forwarding?.notify(row);
}

/** The row to write for a planned one (its lead's id filled in), or none when the vendor's retry is already stored. */
export async function settledRow(
  ctx: GatewayContext,
  key: VendorKeyRow,
  entry: Planned,
): Promise<SubmissionRow | undefined> {
  const { row } = entry;
  if (entry.lead && row.canonicalBody) row.canonicalBody = { ...row.canonicalBody, leadId: entry.lead.row.id };
  const existing = await ctx.submissions.findByIdempotencyKey(key.id, row.kind, row.idempotencyKey ?? "");
  if (!existing) return row;
  if (existing.payloadDigest === row.payloadDigest) {
    // Already stored: an appointment after it chains on the stored lead.
    entry.row = existing;
    return undefined;
  }
  const changed = `${row.idempotencyKey}#${(row.payloadDigest ?? "").slice(0, 16)}`;
  const again = await ctx.submissions.findByIdempotencyKey(key.id, row.kind, changed);
  if (again) {
    entry.row = again;
    return undefined;
  }
  row.idempotencyKey = changed;
  if (row.kind === "lead" || row.status !== "queued") return row;
  row.status = "noted";
  row.note =
    `the vendor sent booking ${row.vendorRecordId ?? "(no id)"} again with other values: the Inbound API cannot change ` +
    `an appointment it has (§4.2), so this is kept, not forwarded (the first: ${existing.id})`;
  row.upstreamIdempotencyKey = null;
  return row;
}
