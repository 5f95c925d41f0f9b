import { expect } from "vitest";
import { canonicalDigest } from "../../../../src/canonical-json.js";
import type { SubmissionRow } from "../../../../src/gateway/storage/submissions/index.js";
import type { PlatformSide, PresetSample } from "./conformance-bench.js";

type ExpectedRecord = Extract<PresetSample["expect"], { records: unknown }>["records"][number];

/**
 * docs/connections.md, "Store first, map after": the rows a sample's records became, one each, matched by kind and the
 * vendor's id — the canonical body exactly (a chained appointment's `leadId` the lead row's id, D-301), the test mark,
 * a change (`action`) noted and never sent, everything else forwarded. Returns the rows in the records' order.
 */
export function expectRecordRows(rows: SubmissionRow[], records: readonly ExpectedRecord[]): SubmissionRow[] {
  expect(rows).toHaveLength(records.length);
  const matched: SubmissionRow[] = [];
  for (const [index, record] of records.entries()) {
    const row = rows.find(
      (r) => r.kind === record.kind && r.vendorRecordId === (record.id ?? null) && !matched.includes(r),
    );
    expect(row, `a ${record.kind} row for the vendor's record ${record.id}`).toBeDefined();
    if (!row) continue;
    matched.push(row);
    const leadIndex = chainedLead(records, index);
    const lead = leadIndex === undefined ? undefined : matched[leadIndex];
    const change = record.action === "reschedule" || record.action === "cancel" ? record.action : null;
    expect({
      kind: row.kind,
      vendorRecordId: row.vendorRecordId,
      canonicalBody: row.canonicalBody,
      test: row.test,
      recordAction: row.recordAction,
      status: row.status,
      heldReason: row.heldReason,
    }).toEqual({
      kind: record.kind,
      vendorRecordId: record.id ?? null,
      canonicalBody: lead ? { ...record.body, leadId: lead.id } : record.body,
      test: record.test ?? false,
      recordAction: change,
      // A change the Inbound API cannot express is kept and shown; a booking or a lead (a test one too, in sandbox
      // mode) reaches the platform.
      status: change ? "noted" : "forwarded",
      heldReason: null,
    });
    if (change) expect(row.note).toMatch(/\S/);
    // Keyed by the vendor's own id of it, so the vendor's retry finds it (D-305).
    else if (record.id !== undefined) expect(row.idempotencyKey).toBe(`hook:${record.id}`);
  }
  return matched;
}

/** The index of the lead record an appointment without a `leadId` is chained on: the last lead before it (D-301). */
function chainedLead(records: readonly ExpectedRecord[], index: number): number | undefined {
  const record = records[index];
  if (record?.kind !== "appointment" || record.body.leadId !== undefined) return undefined;
  for (let i = index - 1; i >= 0; i--) if (records[i]?.kind === "lead") return i;
  return undefined;
}

/**
 * What reached the platform since `before` is exactly what was forwarded: each lead's canonical body as the sandbox
 * received it, each appointment with the platform's `lead_…` id of its lead and the idempotency key the gateway
 * derives per vendor key (§8), nothing else.
 */
export function expectPlatformReceived(before: PlatformSide, after: PlatformSide, rows: SubmissionRow[]): void {
  const forwarded = rows.filter((r) => r.status === "forwarded");
  const leads = forwarded.filter((r) => r.kind === "lead");
  expect(after.leads.slice(before.leads.length).map((s) => s.body)).toEqual(leads.map((r) => r.canonicalBody));
  const sent = forwarded
    .filter((r) => r.kind === "appointment")
    .map((row) => {
      const { leadId, ...body } = row.canonicalBody ?? {};
      const lead = rows.find((r) => r.id === leadId);
      const platformLeadId = (lead?.result as { leadId?: string } | null)?.leadId;
      expect(platformLeadId, "the chained lead's platform id").toMatch(/^lead_/);
      const upstream = { ...body, leadId: platformLeadId, idempotencyKey: row.upstreamIdempotencyKey };
      return {
        id: (row.result as { appointmentId?: string } | null)?.appointmentId,
        leadId: platformLeadId,
        startsAt: body.startsAt,
        endsAt: body.endsAt,
        notes: body.notes ?? null,
        idempotencyKey: row.upstreamIdempotencyKey,
        // The sandbox's digest of the body it validated: the canonical body, nothing added or left out.
        bodyDigest: canonicalDigest(upstream),
      };
    });
  expect(
    after.appointments.slice(before.appointments.length).map((a) => ({
      id: a.id,
      leadId: a.leadId,
      startsAt: a.startsAt,
      endsAt: a.endsAt,
      notes: a.notes,
      idempotencyKey: a.idempotencyKey,
      bodyDigest: a.bodyDigest,
    })),
  ).toEqual(sent);
}

/**
 * A payload the platform cannot take as it is: held with the reason, its payload kept for a re-map (D-308) — for a
 * preset that fetches, one per notified record, its target kept and the fetched record as the payload.
 */
export function expectHeldRows(rows: SubmissionRow[], sample: PresetSample, fetches: boolean): void {
  const targets = Object.keys(sample.fetched ?? {}).sort();
  expect(rows.map((r) => r.status)).toEqual((fetches ? targets : ["the payload"]).map(() => "held"));
  for (const row of rows) {
    expect(row.heldReason).toMatch(/\S/);
    expect(row.canonicalBody).toBeNull();
  }
  if (fetches) {
    expect(rows.map((r) => r.fetchTarget?.id).sort()).toEqual(targets);
    for (const row of rows) {
      expect(JSON.parse(row.rawPayload ?? "null")).toEqual(sample.fetched?.[row.fetchTarget?.id ?? ""]);
    }
  }
}

/** A row as a retry must leave it. */
export function unchanged(row: SubmissionRow) {
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    canonicalBody: row.canonicalBody,
    idempotencyKey: row.idempotencyKey,
    heldReason: row.heldReason,
  };
}
