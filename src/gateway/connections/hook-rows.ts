import { canonicalDigest } from "../../canonical-json.js";
import { newId } from "../../ids.js";
import type { GatewayContext } from "../context.js";
import type { SubmissionRow } from "../storage/submissions/index.js";
import { submissionRow } from "../storage/submissions/index.js";
import type { VendorKeyRow } from "../storage/vendor-keys/index.js";
import { contactOf } from "../submissions/contact.js";
import { upstreamKey } from "../submissions/upstream-key.js";
import { fetchKey, type HookMapping, heldKey, recordKey } from "./hook-records.js";
import type { ResolvedConnection } from "./resolved-connection.js";

/** What every row of one payload shares. */
export interface Base {
  key: VendorKeyRow;
  connectionId: string;
  /** The payload the rows are made of, as JSON text: the hook's body, or the record fetched for a notification. */
  rawPayload: string;
  test: boolean;
  now: Date;
  /**
   * A held payload's idempotency key, when not the payload's own content (heldKey): a fetched record's is its target's
   * and its content, so two notified records the vendor's API answers alike are held apart.
   */
  heldKey?: string;
  /** The trace its rows' forwarding joins (docs/tracing.md): the hook request's, or the row it re-makes. */
  traceParent?: string | null;
}

/** A row to write, and how to tell it is already there: its idempotency key and content digest. */
export interface Planned {
  row: SubmissionRow;
  /** For an appointment chained on a lead record of the same payload: that record's planned row. */
  lead?: Planned;
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
    traceParent: base.traceParent ?? null,
    ...fields,
  });
}

/** A notified record, to fetch from the vendor's API (fetcher.ts) before it is mapped. */
export function fetchRow(base: Base, connection: ResolvedConnection, target: Record<string, string>): Planned {
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
    const key = base.heldKey ?? heldKey(JSON.parse(base.rawPayload));
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
    const payloadDigest = canonicalDigest(record.body);
    const idempotencyKey = recordKey(record, payloadDigest);
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
      payloadDigest,
      upstreamIdempotencyKey:
        record.kind === "appointment" && typeof body.idempotencyKey === "string"
          ? upstreamKey(base.key.id, body.idempotencyKey)
          : null,
      ...contactOf(record.kind, body),
      extras: record.extras ?? null,
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
