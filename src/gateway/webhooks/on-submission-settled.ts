import { and, eq } from "drizzle-orm";
import {
  bookedAppointments,
  sourcedLeads,
  type submissions,
  submissions as submissionsTable,
} from "../../db/schema/index.js";
import type { GatewayContext } from "../context.js";
import { type Enqueued, enqueueVendorEvent, notifyEnqueued } from "./enqueue.js";
import { appointmentView, contactOfLead, submissionView } from "./projections.js";
import { statementsFor } from "./statements.js";

type Submission = typeof submissions.$inferSelect;

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/**
 * Called by forwarding, in the same process, right after a submission's final state is committed (forwarded or
 * failed). Cheap and never throws: it only writes deliveries (durably, in one transaction) and wakes the dispatcher.
 * Calling it twice for one submission enqueues nothing new (each delivery has a dedupe key).
 */
export function onSubmissionSettled(ctx: GatewayContext, submission: Submission): void {
  const outcome = submission.status;
  if (outcome !== "forwarded" && outcome !== "failed") return;
  try {
    const nowMs = ctx.now().getTime();
    // Immediate: it reads before it writes, and with the BullMQ driver other processes write the same database; a
    // deferred transaction would fail (SQLITE_BUSY, no waiting) whenever another commit came between its read and
    // its first write, and the deliveries would be lost.
    const enqueued = ctx.sqlite.transaction(() => settle(ctx, submission, outcome, nowMs)).immediate();
    notifyEnqueued(ctx, enqueued, nowMs);
  } catch (error) {
    ctx.log.error({ err: error, submissionId: submission.id }, "webhook enqueue for a settled submission failed");
  }
}

function settle(
  ctx: GatewayContext,
  submission: Submission,
  outcome: "forwarded" | "failed",
  nowMs: number,
): Enqueued[] {
  const key = statementsFor(ctx).vendorKey.get({ id: submission.vendorKeyId });
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
      rememberLead(ctx, { companyId: submission.companyId, leadId, source, submissionId: submission.id }, nowIso);
  }

  const appointmentId = text(result?.appointmentId);
  if (submission.status === "forwarded" && submission.kind === "appointment" && appointmentId) {
    if (key.partnerType === "booking_vendor") {
      enqueued.push(...confirmBooking(ctx, submission, key.id, appointmentId, occurredAt, nowMs, nowIso));
    }
  }

  // §1: a lead source hears how its submissions ended; a booking vendor only of its failures (its successes are
  // appointment.booked).
  const event = submission.status === "forwarded" ? "submission.forwarded" : "submission.failed";
  if (key.partnerType === "lead_source" || event === "submission.failed") {
    enqueued.push(
      ...enqueueVendorEvent(
        ctx,
        {
          companyId: submission.companyId,
          vendorKeyId: key.id,
          event,
          resource: { type: "submission", id: submission.id, version: 1 },
          data: submissionView({
            submissionId: submission.id,
            kind: submission.kind,
            outcome,
            result,
            upstreamStatus: submission.upstreamStatus,
            error: submission.lastError,
          }),
          occurredAt,
          dedupeKey: `submission:${submission.id}:${submission.status}`,
        },
        nowMs,
      ),
    );
  }
  return enqueued;
}

/**
 * §4.2 rule 2: the platform sends its own appointment.booked only to *other* subscribers, so the gateway confirms the
 * booking to the vendor that made it, and remembers the appointment so later platform changes reach that vendor.
 */
function confirmBooking(
  ctx: GatewayContext,
  submission: Submission,
  vendorKeyId: string,
  appointmentId: string,
  occurredAt: string,
  nowMs: number,
  nowIso: string,
): Enqueued[] {
  const body = submission.canonicalBody ?? {};
  const leadId = resolveLeadId(ctx, submission.companyId, text(body.leadId));
  ctx.db
    .insert(bookedAppointments)
    .values({
      companyId: submission.companyId,
      appointmentId,
      vendorKeyId,
      submissionId: submission.id,
      leadId: leadId ?? null,
      createdAt: nowIso,
    })
    .onConflictDoNothing()
    .run();
  const owner = ctx.db
    .select({ vendorKeyId: bookedAppointments.vendorKeyId })
    .from(bookedAppointments)
    .where(
      and(eq(bookedAppointments.companyId, submission.companyId), eq(bookedAppointments.appointmentId, appointmentId)),
    )
    .get();
  if (owner?.vendorKeyId !== vendorKeyId) return [];
  return enqueueVendorEvent(
    ctx,
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
        customer: leadId ? visitContact(ctx, submission.companyId, leadId) : undefined,
      }),
      occurredAt,
      dedupeKey: `appointment:${appointmentId}:created`,
    },
    nowMs,
  );
}

/**
 * An appointment may name its lead by the lead's submission (`sub_…`, resolved by forwarding once that lead is
 * forwarded): the platform's lead id is then that submission's result.
 */
function resolveLeadId(ctx: GatewayContext, companyId: string, ref: string | undefined): string | undefined {
  if (ref === undefined || !ref.startsWith("sub_")) return ref;
  const row = ctx.db
    .select({ result: submissionsTable.result })
    .from(submissionsTable)
    .where(and(eq(submissionsTable.id, ref), eq(submissionsTable.companyId, companyId)))
    .get();
  return text(row?.result?.leadId);
}

/** Name, address and phone for the visit, from the latest forwarded submission of its lead (if it came this way). */
function visitContact(ctx: GatewayContext, companyId: string, leadId: string) {
  const row = ctx.db
    .select({ body: submissionsTable.canonicalBody })
    .from(sourcedLeads)
    .innerJoin(submissionsTable, eq(submissionsTable.id, sourcedLeads.contactSubmissionId))
    .where(and(eq(sourcedLeads.companyId, companyId), eq(sourcedLeads.leadId, leadId)))
    .get();
  return contactOfLead(row?.body);
}

function rememberLead(
  ctx: GatewayContext,
  lead: { companyId: string; leadId: string; source: string | null; submissionId: string },
  nowIso: string,
): void {
  // Prepared once (statements.ts): this runs for every forwarded lead.
  statementsFor(ctx).rememberLead.run(lead.companyId, lead.leadId, lead.source, lead.submissionId, nowIso, nowIso);
}
