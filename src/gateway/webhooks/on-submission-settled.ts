import type { GatewayContext } from "../context.js";
import type { SubmissionRow } from "../storage/submissions/index.js";
import type { TransactionContext } from "../storage/transaction.js";
import type { SettlementRecorder } from "../submissions/settlement-recorder.js";
import { type Enqueued, enqueueVendorEvent, notifyEnqueued } from "./enqueue.js";
import { appointmentView, contactOfLead, submissionOutcomeView } from "./projections.js";

type Submission = SubmissionRow;

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/**
 * Forwarding's settlement recorder (AttemptOptions.settlement): what a settled submission is owed is written in the
 * transaction of its outcome, and the webhook dispatcher is woken once that commits.
 */
export function settlementRecorder(ctx: GatewayContext): SettlementRecorder {
  return {
    async record(tx, row, traceParent) {
      const nowMs = ctx.now().getTime();
      const enqueued = await recordSettlement(tx, row, nowMs, { traceParent });
      return () => notifyEnqueued(ctx, enqueued, nowMs);
    },
  };
}

/**
 * Records a settlement in a transaction of its own, marked as forwarding marks it: for a submission settled outside
 * forwarding's outcome transaction (tests and benchmarks standing in for forwarding). Calling it twice for one
 * submission enqueues nothing new (each delivery has a dedupe key).
 */
export async function onSubmissionSettled(ctx: GatewayContext, submission: Submission): Promise<void> {
  const nowMs = ctx.now().getTime();
  // Immediate: it reads before it writes, and other processes may write the same database (BullMQ driver).
  const enqueued = await ctx.transaction(
    async (tx) => {
      await tx.submissions.markSettlementRecorded(submission.id, nowMs);
      return recordSettlement(tx, submission, nowMs);
    },
    "immediate",
    { companyId: submission.companyId },
  );
  notifyEnqueued(ctx, enqueued, nowMs);
}

/**
 * What a settled (forwarded or failed) submission is owed, written inside the caller's transaction (its stores `tx`):
 * its vendor's webhook deliveries, and the records that route later platform events to the vendor (the lead it
 * sourced, the appointment it booked). Idempotent: deliveries have dedupe keys, the records are upserts.
 * `subscribedBy`: only subscriptions created by then get a delivery (the start-up repair, long after the fact).
 * Throws on a database error, so that the caller's transaction, the outcome with it, rolls back.
 */
export async function recordSettlement(
  tx: TransactionContext,
  submission: Submission,
  nowMs: number,
  options: { subscribedBy?: string; traceParent?: string | null | undefined } = {},
): Promise<Enqueued[]> {
  const outcome = submission.status;
  if (outcome !== "forwarded" && outcome !== "failed") return [];
  return settle(tx, submission, outcome, nowMs, options.subscribedBy, options.traceParent ?? submission.traceParent);
}

async function settle(
  tx: TransactionContext,
  submission: Submission,
  outcome: "forwarded" | "failed",
  nowMs: number,
  subscribedBy: string | undefined,
  traceParent: string | null,
): Promise<Enqueued[]> {
  const key = await tx.vendorKeys.get(submission.vendorKeyId);
  if (!key) return [];
  const nowIso = new Date(nowMs).toISOString();
  const occurredAt = submission.forwardedAt ?? submission.updatedAt;
  const result = submission.result ?? null;
  const enqueued: Enqueued[] = [];

  if (submission.status === "forwarded" && submission.kind === "lead") {
    const leadId = text(result?.leadId);
    // Only a lead the key *created* is "sourced" by it (§1); a merge only refreshes the visit contact.
    const source = result?.status === "created" && key.partnerType === "lead_source" ? key.id : null;
    if (leadId)
      await tx.webhooks.routing.rememberLead(
        { companyId: submission.companyId, leadId, source, submissionId: submission.id },
        nowIso,
      );
  }

  const appointmentId = text(result?.appointmentId);
  if (submission.status === "forwarded" && submission.kind === "appointment" && appointmentId) {
    if (key.partnerType === "booking_vendor") {
      enqueued.push(
        ...(await confirmBooking(tx, submission, key.id, appointmentId, {
          occurredAt,
          nowMs,
          subscribedBy,
          traceParent,
        })),
      );
    }
  }

  // §1: a lead source hears how its submissions ended; a booking vendor only of its failures (its successes are
  // appointment.booked).
  const event = submission.status === "forwarded" ? "submission.forwarded" : "submission.failed";
  if (key.partnerType === "lead_source" || event === "submission.failed") {
    enqueued.push(
      ...(await enqueueVendorEvent(
        tx,
        {
          companyId: submission.companyId,
          vendorKeyId: key.id,
          event,
          resource: { type: "submission", id: submission.id, version: 1 },
          data: submissionOutcomeView({
            submissionId: submission.id,
            kind: submission.kind,
            outcome,
            result,
            upstreamStatus: submission.upstreamStatus,
            error: submission.lastError,
          }),
          occurredAt,
          dedupeKey: `submission:${submission.id}:${submission.status}`,
          subscribedBy,
          traceParent,
        },
        nowMs,
      )),
    );
  }
  return enqueued;
}

/**
 * §4.2 rule 2: the platform sends its own appointment.booked only to *other* subscribers, so the gateway confirms the
 * booking to the vendor that made it, and remembers the appointment so later platform changes reach that vendor.
 */
async function confirmBooking(
  tx: TransactionContext,
  submission: Submission,
  vendorKeyId: string,
  appointmentId: string,
  at: { occurredAt: string; nowMs: number; subscribedBy: string | undefined; traceParent: string | null },
): Promise<Enqueued[]> {
  const { occurredAt, nowMs, subscribedBy, traceParent } = at;
  const nowIso = new Date(nowMs).toISOString();
  const body = submission.canonicalBody ?? {};
  const leadId = await resolveLeadId(tx, submission.companyId, text(body.leadId));
  await tx.webhooks.routing.rememberBooking({
    companyId: submission.companyId,
    appointmentId,
    vendorKeyId,
    submissionId: submission.id,
    leadId: leadId ?? null,
    createdAt: nowIso,
  });
  if ((await tx.webhooks.routing.bookerOf(submission.companyId, appointmentId)) !== vendorKeyId) return [];
  return enqueueVendorEvent(
    tx,
    {
      companyId: submission.companyId,
      vendorKeyId,
      event: "appointment.booked",
      resource: { type: "appointment", id: appointmentId, version: 1 },
      data: appointmentView({
        change: "created",
        appointmentId,
        leadId,
        startsAt: text(body.startsAt),
        endsAt: text(body.endsAt),
        customer: leadId ? await visitContact(tx, submission.companyId, leadId) : undefined,
      }),
      occurredAt,
      dedupeKey: `appointment:${appointmentId}:created`,
      subscribedBy,
      traceParent,
    },
    nowMs,
  );
}

/**
 * An appointment may name its lead by the lead's submission (`sub_…`, resolved by forwarding once that lead is
 * forwarded): the platform's lead id is then that submission's result.
 */
async function resolveLeadId(
  tx: TransactionContext,
  companyId: string,
  ref: string | undefined,
): Promise<string | undefined> {
  if (ref === undefined || !ref.startsWith("sub_")) return ref;
  return text((await tx.submissions.getOfCompany(ref, companyId))?.result?.leadId);
}

/** Name, address and phone for the visit, from the latest forwarded submission of its lead (if it came this way). */
async function visitContact(tx: TransactionContext, companyId: string, leadId: string) {
  const submissionId = await tx.webhooks.routing.contactSubmissionOf(companyId, leadId);
  return contactOfLead(submissionId ? (await tx.submissions.get(submissionId))?.canonicalBody : undefined);
}
