import { rowReader } from "../../db/row-reader.js";
import { submissions } from "../../db/schema/index.js";
import type { GatewayContext } from "../context.js";
import type { Enqueued } from "../webhooks/enqueue.js";
import { markSettlementRecorded, recordSettlement } from "../webhooks/on-submission-settled.js";
import type { PersonMatch } from "./person-match.js";

/** Submissions of a company scanned per step of an erasure (one transaction, then the event loop's turn). */
export const ERASURE_CHUNK = 2_000;

/** What an erasure found of the person in a company's submissions: what the webhook copies are found by. */
export interface ErasedSubmissions {
  /** The person's own (lead) submissions, by contact. */
  leads: number;
  /** Appointment submissions for the person's leads. */
  appointments: number;
  /** Every erased submission's id. */
  submissionIds: string[];
  /** The platform's lead ids the person's leads were forwarded as. */
  leadIds: string[];
  /** The platform's appointment ids booked for those leads. */
  appointmentIds: string[];
  /** Outcome deliveries of the submissions the erasure failed (woken once committed). */
  enqueued: Enqueued[];
}

interface Scanned {
  id: string;
  status: string;
  email: string | null;
  phone: string | null;
  leadRef: string | null;
  result: string | null;
}

/**
 * Erases the person from a company's submissions: first the submissions whose contact is theirs, then the appointments
 * that name one of those leads (by its `sub_…` id or the platform's `lead_…` id), whose native payload and notes are
 * the same person's visit. Raw payload and canonical body are dropped; what was not sent yet fails with the reason
 * ("erased at the owner's request"), its outcome recorded as forwarding records it. The contact columns go last
 * (forgetContacts), once every other copy is gone.
 *
 * The contact columns have no index of their own: each would cost every intake insert (about 3 µs apiece) for an
 * operation an owner runs rarely. The company's submissions are scanned instead, newest first on the (company, id)
 * index, ERASURE_CHUNK rows per step with the event loop's turn between steps, so a large company never holds the
 * thread serving intake. Each step is a transaction; a crash midway leaves the rest for a rerun (erasure is
 * idempotent).
 */
export async function eraseSubmissions(
  ctx: GatewayContext,
  companyId: string,
  person: PersonMatch,
): Promise<ErasedSubmissions> {
  const found: ErasedSubmissions = {
    leads: 0,
    appointments: 0,
    submissionIds: [],
    leadIds: [],
    appointmentIds: [],
    enqueued: [],
  };
  const leadRefs = new Set<string>();
  const byContact = { email: "contact_email", phone: "contact_phone", leadRef: "NULL" };
  await scanSubmissions(ctx, companyId, found, byContact, (row) => {
    if (!((person.email && row.email === person.email) || (person.phone && row.phone === person.phone))) return false;
    leadRefs.add(row.id);
    const leadId = parsed(row.result)?.leadId;
    if (typeof leadId === "string") {
      leadRefs.add(leadId);
      found.leadIds.push(leadId);
    }
    found.leads++;
    return true;
  });
  if (leadRefs.size === 0) return found;
  const byLead = { email: "NULL", phone: "NULL", leadRef: "json_extract(canonical_body, '$.leadId')" };
  await scanSubmissions(ctx, companyId, found, { ...byLead, where: "kind = 'appointment'" }, (row) => {
    if (row.leadRef === null || !leadRefs.has(row.leadRef)) return false;
    const appointmentId = parsed(row.result)?.appointmentId;
    if (typeof appointmentId === "string") found.appointmentIds.push(appointmentId);
    found.appointments++;
    return true;
  });
  // Booked through the gateway for one of the person's leads, whatever became of the submission since.
  const booked = ctx.sqlite
    .prepare<[string], { appointmentId: string; leadId: string | null }>(
      "SELECT appointment_id AS appointmentId, lead_id AS leadId FROM booked_appointments WHERE company_id = ?",
    )
    .all(companyId);
  for (const b of booked) if (b.leadId !== null && leadRefs.has(b.leadId)) found.appointmentIds.push(b.appointmentId);
  found.appointmentIds = [...new Set(found.appointmentIds)];
  return found;
}

/**
 * One pass over a company's submissions, newest first, ERASURE_CHUNK rows per transaction: `query` says by which
 * expressions the email, phone and lead reference of a row are read (constants here, never input); the rows `match`
 * accepts are erased in the same transaction.
 */
async function scanSubmissions(
  ctx: GatewayContext,
  companyId: string,
  found: ErasedSubmissions,
  query: { email: string; phone: string; leadRef: string; where?: string },
  match: (row: Scanned) => boolean,
): Promise<void> {
  const select = ctx.sqlite.prepare<[string, string, number], Scanned>(
    `SELECT id, status, result, ${query.email} AS email, ${query.phone} AS phone, ${query.leadRef} AS leadRef
     FROM submissions WHERE company_id = ? AND id < ? AND ${query.where ?? "1"} ORDER BY id DESC LIMIT ?`,
  );
  // Above every id: the scan walks down from the newest.
  let before = "\uffff";
  for (;;) {
    const step = ctx.sqlite
      .transaction(() => {
        const rows = select.all(companyId, before, ERASURE_CHUNK);
        const matching = rows.filter(match);
        found.enqueued.push(...eraseRows(ctx, matching));
        found.submissionIds.push(...matching.map((r) => r.id));
        return { scanned: rows.length, last: rows.at(-1)?.id };
      })
      .immediate();
    if (step.scanned < ERASURE_CHUNK || step.last === undefined) return;
    before = step.last;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Drops the rows' payloads; fails what was not sent, recording its outcome (inside the step's transaction). */
function eraseRows(ctx: GatewayContext, rows: readonly Scanned[]): Enqueued[] {
  const nowMs = ctx.now().getTime();
  const now = new Date(nowMs).toISOString();
  // The contact columns stay until the whole erasure is done (forgetContacts): a rerun after a crash finds the
  // person's submissions by them, and through them everything else.
  const erase = ctx.sqlite.prepare(
    "UPDATE submissions SET raw_payload = NULL, canonical_body = NULL, purged_at = ?, updated_at = ? WHERE id = ?",
  );
  const fail = ctx.sqlite.prepare(
    `UPDATE submissions SET status = 'failed', last_error = 'erased at the owner''s request', next_attempt_at = NULL,
       waiting_reason = NULL, lease_until = NULL WHERE id = ?`,
  );
  const read = rowReader(ctx.sqlite, submissions);
  const enqueued: Enqueued[] = [];
  for (const row of rows) {
    erase.run(now, now, row.id);
    if (row.status === "forwarded" || row.status === "failed") continue;
    // Nothing is left to send: it ends here, and its vendor hears so as of any failure (§1).
    fail.run(row.id);
    const failed = read(row.id);
    if (failed) enqueued.push(...recordSettlement(ctx, failed, nowMs));
    markSettlementRecorded(ctx, row.id, nowMs);
  }
  return enqueued;
}

/** The last step of an erasure: the person's submissions forget their contact, and are found by it no more. */
export function forgetContacts(ctx: GatewayContext, submissionIds: readonly string[]): void {
  const forget = ctx.sqlite.prepare("UPDATE submissions SET contact_email = NULL, contact_phone = NULL WHERE id = ?");
  for (let i = 0; i < submissionIds.length; i += ERASURE_CHUNK) {
    const chunk = submissionIds.slice(i, i + ERASURE_CHUNK);
    ctx.sqlite.transaction(() => {
      for (const id of chunk) forget.run(id);
    })();
  }
}

function parsed(json: string | null): Record<string, unknown> | undefined {
  if (json === null) return undefined;
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
