import type { GatewayContext } from "../context.js";
import type { ScannedSubmission } from "../storage/submissions/index.js";
import type { Enqueued } from "../webhooks/enqueue.js";
import { recordSettlement } from "../webhooks/on-submission-settled.js";
import type { PersonMatch } from "./person-match.js";

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

/**
 * Erases the person from a company's submissions: first the submissions whose contact is theirs, then the appointments
 * that name one of those leads (by its `sub_…` id or the platform's `lead_…` id), whose native payload and notes are
 * the same person's visit. Raw payload and canonical body are dropped; what was not sent yet fails with the reason
 * ("erased at the owner's request"), its outcome recorded as forwarding records it. The contact columns go last
 * (forgetContacts), once every other copy is gone.
 *
 * The contact columns have no index of their own: each would cost every intake insert (about 3 µs apiece) for an
 * operation an owner runs rarely. The company's submissions are scanned instead (SubmissionStore.eraseStep), a
 * chunk per transaction with the event loop's turn between steps, so a large company never holds the thread serving
 * intake; a crash midway leaves the rest for a rerun (erasure is idempotent).
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
  await scanSubmissions(ctx, companyId, found, "contact", (row) => {
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
  await scanSubmissions(ctx, companyId, found, "leadReference", (row) => {
    if (row.leadRef === null || !leadRefs.has(row.leadRef)) return false;
    const appointmentId = parsed(row.result)?.appointmentId;
    if (typeof appointmentId === "string") found.appointmentIds.push(appointmentId);
    found.appointments++;
    return true;
  });
  // Booked through the gateway for one of the person's leads, whatever became of the submission since.
  const booked = await ctx.webhooks.routing.bookingsOf(companyId);
  for (const b of booked) if (b.leadId !== null && leadRefs.has(b.leadId)) found.appointmentIds.push(b.appointmentId);
  found.appointmentIds = [...new Set(found.appointmentIds)];
  return found;
}

/**
 * One pass over a company's submissions (SubmissionStore.eraseStep), newest first, ERASURE_CHUNK rows per immediate
 * transaction with the event loop's turn between steps: the rows `match` accepts are erased, and what the erasure
 * failed has its outcome recorded in the step's transaction, as forwarding records it.
 */
async function scanSubmissions(
  ctx: GatewayContext,
  companyId: string,
  found: ErasedSubmissions,
  by: "contact" | "leadReference",
  match: (row: ScannedSubmission) => boolean,
): Promise<void> {
  const nowMs = ctx.now().getTime();
  // Above every id: the scan walks down from the newest.
  let before: string | undefined = "\uffff";
  while (before !== undefined) {
    const from = before;
    before = await ctx.transaction(
      async (tx) => {
        const step = await tx.submissions.eraseStep(companyId, by, from, nowMs, match);
        for (const id of step.failed) {
          const failed = await tx.submissions.get(id);
          if (failed) found.enqueued.push(...(await recordSettlement(tx, failed, nowMs)));
          await tx.submissions.markSettlementRecorded(id, nowMs);
        }
        found.submissionIds.push(...step.erased);
        return step.last;
      },
      "immediate",
      { companyId },
    );
    if (before !== undefined) await new Promise((resolve) => setImmediate(resolve));
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
