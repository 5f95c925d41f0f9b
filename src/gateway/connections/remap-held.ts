import { ApiError } from "../../http/errors.js";
import type { GatewayContext } from "../context.js";
import type { SubmissionRow } from "../storage/submissions/index.js";
import { planHookRows } from "./accept-hook.js";
import type { JsonValue } from "./bodies/index.js";
import { vendorKeyOf } from "./hook-mapping.js";
import type { Base, Planned } from "./hook-rows.js";
import { ConnectionResolver, type ResolvedConnection } from "./resolved-connection.js";
import { settledRow } from "./store-hook-rows.js";

/** What a re-map of held payloads did (the redrive's answer, docs/owner-api.md). */
export interface RemapOutcome {
  /** Submissions queued to be forwarded: records made of held payloads. */
  redriven: number;
  /** Held payloads that left `held`: mapped into records, sent back to their fetch, or noted. */
  remapped: number;
  /** Submissions made beside the held rows (a payload's second and later records). */
  created: number;
  /** Held payloads still held, or not re-mapped, with the reason. */
  skipped: { submissionId: string; reason: string }[];
}

/** A profile version named by the owner for the re-map, with the kind of its profile. */
export interface RemapVersion {
  id: string;
  kind: string;
}

/**
 * Held hook payloads mapped again after a fix (D-308): each stored payload goes through the same planning as when it
 * arrived (accept-hook.ts), with its connection's current profile version or `version`. Records produced → the held
 * row becomes the first record not already stored (queued, with its canonical body, the vendor's id and the
 * idempotency the hook route derives) and the others are new rows, in one transaction; a held row whose notified
 * record is to be fetched goes back to `fetching`; still unmappable → it stays held with the new reason.
 */
export async function remapHeldPayloads({
  ctx,
  rows,
  version,
}: {
  ctx: GatewayContext;
  rows: readonly SubmissionRow[];
  version?: RemapVersion | undefined;
}): Promise<RemapOutcome> {
  const resolver = new ConnectionResolver(ctx);
  const outcome: RemapOutcome = { redriven: 0, remapped: 0, created: 0, skipped: [] };
  const queued: SubmissionRow[] = [];
  for (const held of rows) {
    const result = await remapOne(ctx, resolver, held, version);
    if ("skipped" in result) {
      outcome.skipped.push({ submissionId: held.id, reason: result.skipped });
      continue;
    }
    outcome.remapped++;
    outcome.created += result.created;
    for (const row of result.rows) if (row.status === "queued") queued.push(row);
  }
  outcome.redriven = queued.length;
  for (const row of queued) ctx.running.forwarding?.notify(row);
  return outcome;
}

type Result = { skipped: string } | { rows: SubmissionRow[]; created: number };

async function remapOne(
  ctx: GatewayContext,
  resolver: ConnectionResolver,
  held: SubmissionRow,
  version: RemapVersion | undefined,
): Promise<Result> {
  if (held.connectionId === null) return { skipped: "not a hook payload" };
  if (held.rawPayload === null) return { skipped: "raw payload purged" };
  const row = await ctx.connections.getOfCompany(held.connectionId, held.companyId);
  if (!row || row.revokedAt !== null) return { skipped: "its connection is revoked" };
  if (version && version.kind !== row.profileKind) {
    return { skipped: `profile version maps ${version.kind}s; the connection maps ${row.profileKind}s` };
  }
  let connection: ResolvedConnection;
  let base: Base;
  try {
    connection = resolver.resolve(row);
    const key = await vendorKeyOf(ctx, connection);
    base = {
      key,
      connectionId: row.id,
      rawPayload: held.rawPayload,
      test: held.test,
      now: ctx.now(),
      traceParent: held.traceParent,
    };
  } catch (error) {
    // The connection's vendor key revoked on its own; a preset the gateway no longer ships.
    if (error instanceof ApiError && error.code === "not_found") return { skipped: "its vendor key is revoked" };
    if (error instanceof ApiError) return { skipped: error.message };
    throw error;
  }
  const now = base.now.toISOString();
  if (held.fetchTarget !== null) return refetch(ctx, held, base, version);
  const planned = await planHookRows(ctx, connection, base, JSON.parse(held.rawPayload) as JsonValue, version?.id);
  const [first] = planned;
  if (planned.length === 1 && first?.row.status === "held") {
    const reason = first.row.heldReason ?? "held";
    const change = { heldReason: reason, profileVersionId: first.row.profileVersionId, updatedAt: now };
    if (!(await ctx.submissions.replaceHeld(held.id, change))) return { skipped: "no longer held" };
    return { skipped: `still held: ${reason}` };
  }
  return place(ctx, held, base, planned);
}

/**
 * The planned rows written in the held row's place: the first one not already stored takes over the held row (its id,
 * so a record chained on it names it, and the time it arrived), the others are inserted beside it.
 */
async function place(ctx: GatewayContext, held: SubmissionRow, base: Base, planned: Planned[]): Promise<Result> {
  const now = base.now.toISOString();
  const inserts: SubmissionRow[] = [];
  let replacement: SubmissionRow | undefined;
  let stored: string | undefined;
  for (const entry of planned) {
    const settled = await settledRow(ctx, base.key, entry);
    if (!settled) {
      stored ??= entry.row.id;
      continue;
    }
    if (replacement) inserts.push(settled);
    else {
      // Mutated in place: an appointment settled after it chains on the held row's id.
      settled.id = held.id;
      settled.createdAt = held.createdAt;
      settled.updatedAt = now;
      replacement = settled;
    }
  }
  // Every record already stored (the vendor sent it again after the fix), or none named: nothing to forward.
  replacement ??= {
    ...held,
    status: "noted",
    heldReason: null,
    note: stored
      ? `mapped again: its records were already stored (${stored})`
      : "mapped again: the payload names no record",
    updatedAt: now,
  };
  const change = replacement;
  try {
    const replaced = await ctx.transaction(async (tx) => {
      if (!(await tx.submissions.replaceHeld(held.id, change))) return false;
      for (const row of inserts) await tx.submissions.insert(row);
      return true;
    });
    if (!replaced) return { skipped: "no longer held" };
  } catch (error) {
    // The vendor's retry stored one of these records between the look and the write: the next re-map finds it.
    const again = await Promise.all(
      inserts.map((row) => ctx.submissions.findByIdempotencyKey(row.vendorKeyId, row.kind, row.idempotencyKey ?? "")),
    );
    if (again.every((found) => found === undefined)) throw error;
    return { skipped: "its records were being stored meanwhile: re-map it again" };
  }
  return { rows: [change, ...inserts], created: inserts.length };
}

/**
 * A held row of a notified record (its fetch target kept): sent back to its fetch, which maps the record it fetches
 * with the connection's bound profile version — so another version cannot be named for it.
 */
async function refetch(
  ctx: GatewayContext,
  held: SubmissionRow,
  base: Base,
  version: RemapVersion | undefined,
): Promise<Result> {
  const bound = held.kind === "lead" ? base.key.leadProfileVersionId : base.key.appointmentProfileVersionId;
  if (version && version.id !== bound) {
    return {
      skipped:
        "a fetched record is mapped with the connection's bound profile version: bind the fixed version (roll the " +
        "profile to it), then re-map without a profile version",
    };
  }
  const change = { status: "fetching" as const, heldReason: null, nextAttemptAt: base.now.getTime() };
  if (!(await ctx.submissions.replaceHeld(held.id, { ...change, updatedAt: base.now.toISOString() }))) {
    return { skipped: "no longer held" };
  }
  return { rows: [{ ...held, ...change }], created: 0 };
}
