import { canonicalDigest } from "../../canonical-json.js";
import { ApiError, notFound } from "../../http/errors.js";
import { newId } from "../../ids.js";
import type { GatewayContext } from "../context.js";
import {
  EngineClosedError,
  EngineOverloadedError,
  EngineUnavailableError,
  type MappingOutcome,
} from "../profiles/index.js";
import type { SubmissionRow } from "../storage/submissions/index.js";
import { submissionRow } from "../storage/submissions/index.js";
import type { VendorKeyRow } from "../storage/vendor-keys/index.js";
import { contactOf } from "../submissions/contact.js";
import { upstreamKey } from "../submissions/upstream-key.js";
import type { JsonValue } from "./bodies/index.js";
import { fetchTargets } from "./fetch-targets.js";
import { fetchKey, type HookMapping, heldKey, hookMapping, recordKey } from "./hook-records.js";
import type { ResolvedConnection } from "./resolved-connection.js";
import { isTestPayload } from "./test-marker.js";

/**
 * Stores what a vendor posted to its hook URL, durably, before the vendor is answered (docs/connections.md, "Store
 * first, map after"): the records its profile makes of it (a lead; a booking's lead and its appointment, chained), a
 * notified record to fetch, or the payload held for the owner with the reason when the profile cannot map it or it
 * lacks what the platform requires. A vendor's retry makes no second submission (the records' own ids, D-305); a
 * change the Inbound API cannot express (a reschedule, a cancellation, a booking changed under the same id) is
 * stored as `noted`, never sent as a second appointment.
 */
export async function acceptHookPayload(
  ctx: GatewayContext,
  connection: ResolvedConnection,
  payload: { body: JsonValue },
): Promise<void> {
  const key = await vendorKeyOf(ctx, connection);
  const tree = payload.body;
  const test = await isTestPayload(ctx, connection, tree);
  const base = { key, connectionId: connection.row.id, rawPayload: JSON.stringify(tree), test, now: ctx.now() };
  await store(ctx, key, await planHookRows(ctx, connection, base, tree));
}

/**
 * The rows one payload becomes, not written yet: a row to fetch per notified record, or the records of the profile's
 * mapping (by default the version bound to the connection's key; a held payload's re-map may name another, D-308), or
 * the payload held with the reason.
 */
export async function planHookRows(
  ctx: GatewayContext,
  connection: ResolvedConnection,
  base: Base,
  tree: JsonValue,
  versionId?: string,
): Promise<Planned[]> {
  const fetch = connection.declarations.fetch;
  const kind = connection.row.profileKind;
  if (fetch) {
    const targets = await fetchTargets(ctx, connection, fetch, tree);
    return Array.isArray(targets)
      ? targets.map((target) => fetchRow(base, connection, target))
      : mappedRows(ctx, base, kind, { held: true, reason: targets.held, profileVersionId: "" });
  }
  return mappedRows(ctx, base, kind, await mapPayload(ctx, base.key, kind, tree, versionId));
}

/** What every row of one payload shares. */
export interface Base {
  key: VendorKeyRow;
  connectionId: string;
  rawPayload: string;
  test: boolean;
  now: Date;
}

/** A row to write, and how to tell it is already there: its idempotency key and content digest. */
export interface Planned {
  row: SubmissionRow;
  /** For an appointment chained on a lead record of the same payload: that record's planned row. */
  lead?: Planned;
}

export async function vendorKeyOf(ctx: GatewayContext, connection: ResolvedConnection): Promise<VendorKeyRow> {
  const found = ctx.vendorKeys.find(connection.row.vendorKeyId);
  const key = found instanceof Promise ? await found : found;
  if (!key || key.revokedAt !== null) throw notFound();
  return key;
}

/**
 * The connection's profile over the payload: the version bound to its key, or `versionId`. A profile that cannot run
 * now is the gateway's 503, not the vendor's fault.
 */
async function mapPayload(
  ctx: GatewayContext,
  key: VendorKeyRow,
  kind: "lead" | "appointment",
  tree: JsonValue,
  versionId: string | null = kind === "lead" ? key.leadProfileVersionId : key.appointmentProfileVersionId,
): Promise<HookMapping> {
  if (versionId === null)
    return { held: true, reason: `no ${kind} profile is bound to the connection`, profileVersionId: "" };
  const found = ctx.profiles.expressionOf(key.companyId, versionId);
  const version = found instanceof Promise ? await found : found;
  if (!version) return { held: true, reason: "the bound profile version is gone", profileVersionId: versionId };
  let outcome: MappingOutcome;
  try {
    outcome = await ctx.engine.map({ versionId, kind, expression: version.expression, payload: tree });
  } catch (error) {
    if (
      error instanceof EngineOverloadedError ||
      error instanceof EngineUnavailableError ||
      error instanceof EngineClosedError
    ) {
      throw new ApiError("unavailable", "profile evaluation is busy; retry shortly", {
        headers: { "retry-after": "1" },
        cause: error,
      });
    }
    throw error;
  }
  return hookMapping(kind, versionId, outcome);
}

function rowOf(base: Base, fields: Partial<SubmissionRow> & Pick<SubmissionRow, "kind" | "status">): SubmissionRow {
  return submissionRow({
    id: newId("sub", base.now.getTime()),
    companyId: base.key.companyId,
    vendorKeyId: base.key.id,
    credentialId: base.key.credentialId,
    payloadDigest: null,
    createdAt: base.now.toISOString(),
    rawPayload: base.rawPayload,
    connectionId: base.connectionId,
    test: base.test,
    ...fields,
  });
}

/** A notified record, to fetch from the vendor's API before it is mapped: due at once (no next attempt time yet). */
function fetchRow(base: Base, connection: ResolvedConnection, target: Record<string, string>): Planned {
  return {
    row: rowOf(base, {
      kind: connection.row.profileKind,
      status: "fetching",
      fetchTarget: target,
      idempotencyKey: fetchKey(target),
      payloadDigest: fetchKey(target),
    }),
  };
}

/** The rows of a mapping: one held payload, or one per record (appointments chained on the lead before them). */
export function mappedRows(
  ctx: GatewayContext,
  base: Base,
  kind: "lead" | "appointment",
  mapping: HookMapping,
): Planned[] {
  if (mapping.held) {
    const key = heldKey(JSON.parse(base.rawPayload));
    return [
      {
        row: rowOf(base, {
          kind,
          status: "held",
          heldReason: mapping.reason,
          profileVersionId: mapping.profileVersionId || null,
          idempotencyKey: key,
          payloadDigest: key,
        }),
      },
    ];
  }
  const planned: Planned[] = [];
  let lead: Planned | undefined;
  for (const record of mapping.records) {
    const body = { ...(record.body as Record<string, unknown>) };
    const test = base.test || record.test === true;
    const change = record.action === "reschedule" || record.action === "cancel" ? record.action : null;
    // A vendor's test record reaches the sandbox, never a live platform (docs/connections.md).
    const liveTest = test && ctx.settings.mode === "live";
    const note = change
      ? noteOfChange(change, record.id)
      : liveTest
        ? "a vendor's test record: kept, never forwarded to the live platform"
        : null;
    const idempotencyKey = recordKey(record);
    const row = rowOf(base, {
      kind: record.kind,
      status: note ? "noted" : "queued",
      note,
      test,
      canonicalBody: body,
      profileVersionId: mapping.profileVersionId,
      vendorRecordId: record.id ?? null,
      recordAction: change,
      idempotencyKey,
      payloadDigest: canonicalDigest(record.body),
      upstreamIdempotencyKey:
        record.kind === "appointment" && typeof body.idempotencyKey === "string"
          ? upstreamKey(base.key.id, body.idempotencyKey)
          : null,
      ...contactOf(record.kind, body),
    });
    const entry: Planned = { row };
    if (record.kind === "lead") lead = entry;
    // D-301: an appointment without a leadId is the visit of the lead record before it.
    else if (body.leadId === undefined && lead) entry.lead = lead;
    planned.push(entry);
  }
  return planned;
}

function noteOfChange(change: "reschedule" | "cancel", id: string | undefined): string {
  const what = change === "reschedule" ? "moved" : "cancelled";
  return (
    `the vendor ${what} booking ${id ?? "(no id)"}: the Inbound API cannot ${change === "reschedule" ? "move" : "cancel"} ` +
    "an appointment (§4.2), so it is kept here, not forwarded; change it in the platform"
  );
}

/**
 * Writes the planned rows, each once: a row whose key is already there with the same content is the vendor's retry
 * (kept as it is); with other content, a lead is sent again (§4.2 rule 1: re-sending merges) and anything else is a
 * change the platform cannot take, stored as `noted`. One row goes through intake's group commit; several (a lead and
 * its appointment) in one transaction.
 */
async function store(ctx: GatewayContext, key: VendorKeyRow, planned: Planned[]): Promise<void> {
  const rows: SubmissionRow[] = [];
  for (const entry of planned) {
    const row = await settledRow(ctx, key, entry);
    if (row) rows.push(row);
  }
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
  for (const row of rows) if (row.status === "queued") ctx.forwarding?.notify(row);
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
