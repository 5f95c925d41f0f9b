import { and, eq, inArray, isNull, lte, or, sql } from "drizzle-orm";
import { submissionAttempts, submissions, upstreamCredentials } from "../../db/schema/index.js";
import { newId } from "../../ids.js";
import type { GatewayContext } from "../context.js";
import type { SubmissionRow } from "../intake/submission-view.js";
import { leadOf } from "../submissions/lead-of.js";
import type { UpstreamResponse } from "./upstream-client.js";

/** What a dispatcher needs of a queued submission: its route, when it is due, and a lead it may wait for. */
const admissibleColumns = {
  id: submissions.id,
  kind: submissions.kind,
  companyId: submissions.companyId,
  credentialId: submissions.credentialId,
  nextAttemptAt: submissions.nextAttemptAt,
  canonicalBody: submissions.canonicalBody,
};

export type Admissible = Pick<
  SubmissionRow,
  "id" | "kind" | "companyId" | "credentialId" | "nextAttemptAt" | "canonicalBody"
>;

/** The database side of forwarding: every state change of a submission is committed here, nowhere else. */
export class SubmissionStore {
  constructor(private readonly ctx: GatewayContext) {}

  get(id: string): SubmissionRow | undefined {
    return this.ctx.db.select().from(submissions).where(eq(submissions.id, id)).get();
  }

  /** The lead submission an appointment names, within the appointment's own vendor key and company (lead-of.ts). */
  leadOf(appointment: Pick<SubmissionRow, "companyId" | "vendorKeyId">, leadSubmissionId: string) {
    return leadOf(this.ctx, appointment, leadSubmissionId);
  }

  /** After a crash, what was being sent is sent again: leads merge and appointments replay (§4.2), so it is safe. */
  releaseExpiredLeases(expiredBy: number, now: number): number {
    return this.ctx.db
      .update(submissions)
      .set({ status: "queued", leaseUntil: null, updatedAt: new Date(now).toISOString() })
      .where(
        and(
          eq(submissions.status, "forwarding"),
          or(isNull(submissions.leaseUntil), lte(submissions.leaseUntil, expiredBy)),
        ),
      )
      .run().changes;
  }

  releaseLeases(ids: string[]): void {
    if (ids.length === 0) return;
    this.ctx.db
      .update(submissions)
      .set({ status: "queued", leaseUntil: null })
      .where(and(inArray(submissions.id, ids), eq(submissions.status, "forwarding")))
      .run();
  }

  /** Queued submissions whose credential is active, oldest first: what a dispatcher needs of each, no more. */
  loadQueued(): Admissible[] {
    return this.ctx.db
      .select(admissibleColumns)
      .from(submissions)
      .innerJoin(upstreamCredentials, eq(upstreamCredentials.id, submissions.credentialId))
      .where(and(eq(submissions.status, "queued"), eq(upstreamCredentials.status, "active")))
      .orderBy(submissions.id)
      .all();
  }

  /**
   * Takes the submission for one send: only if it is queued, or its last holder's lease ran out. Several worker
   * processes may be handed the same submission (a re-dispatch after a lost answer); the database lets one send it.
   */
  claim(id: string, now: number, leaseMs: number): boolean {
    return (
      this.ctx.db
        .update(submissions)
        .set({
          status: "forwarding",
          leaseUntil: now + leaseMs,
          firstSentAt: sql`coalesce(${submissions.firstSentAt}, ${now})`,
          updatedAt: new Date(now).toISOString(),
        })
        .where(
          and(
            eq(submissions.id, id),
            or(
              eq(submissions.status, "queued"),
              and(
                eq(submissions.status, "forwarding"),
                or(isNull(submissions.leaseUntil), lte(submissions.leaseUntil, now)),
              ),
            ),
          ),
        )
        .run().changes === 1
    );
  }

  /** Gives back a claim that was not sent after all: queued again, its first send time as it was. */
  unclaim(id: string, firstSentAt: number | null): void {
    this.ctx.db
      .update(submissions)
      .set({ status: "queued", leaseUntil: null, firstSentAt })
      .where(and(eq(submissions.id, id), eq(submissions.status, "forwarding")))
      .run();
  }

  /**
   * An appointment naming a lead submission that is not settled yet waits for it. Checked and set in one immediate
   * transaction, so a lead settled by another process at the same moment cannot leave it waiting for nothing. A
   * reference that is no lead of the appointment's own key holds nothing: forwarding then fails it (upstream-request).
   */
  holdForLead(appointmentId: string, leadSubmissionId: string, now: number): boolean {
    return this.ctx.sqlite
      .transaction(() => {
        const appointment = this.get(appointmentId);
        const lead = appointment && this.leadOf(appointment, leadSubmissionId);
        if (!lead || lead.status === "forwarded" || lead.status === "failed") return false;
        this.settle(appointmentId, now, {
          status: "waiting",
          waitingReason: `waiting for lead submission ${leadSubmissionId}`,
        });
        return true;
      })
      .immediate();
  }

  recordAttempt(row: SubmissionRow, response: UpstreamResponse, counted: boolean, idempotencyKey: string | null): void {
    this.ctx.db
      .insert(submissionAttempts)
      .values({
        id: newId("att"),
        submissionId: row.id,
        attempt: counted ? row.attempts + 1 : row.attempts,
        counted,
        startedAt: new Date(response.startedAt).toISOString(),
        status: response.status,
        error: response.error,
        latencyMs: response.latencyMs,
        upstreamRequestId: response.requestId,
        upstreamApiVersion: response.apiVersion,
        idempotencyKey,
      })
      .run();
  }

  settle(
    id: string,
    now: number,
    change: Partial<
      Pick<
        SubmissionRow,
        | "status"
        | "attempts"
        | "nextAttemptAt"
        | "lastError"
        | "upstreamStatus"
        | "result"
        | "waitingReason"
        | "forwardedAt"
        | "canonicalBody"
        | "upstreamIdempotencyKey"
        | "settlementRecordedAt"
      >
    >,
  ): SubmissionRow | undefined {
    this.ctx.db
      .update(submissions)
      .set({ ...change, leaseUntil: null, updatedAt: new Date(now).toISOString() })
      .where(eq(submissions.id, id))
      .run();
    return this.get(id);
  }

  /**
   * Settles a submission and, for a lead, queues the appointments that waited for it, in one transaction: a crash
   * between the two would leave them waiting for a lead that is already done.
   */
  settleReleasing(
    id: string,
    now: number,
    change: Parameters<SubmissionStore["settle"]>[2],
  ): { settled: SubmissionRow | undefined; released: SubmissionRow[] } {
    return this.ctx.sqlite.transaction(() => {
      const settled = this.settle(id, now, change);
      if (settled?.kind !== "lead") return { settled, released: [] };
      const released = this.dependents(settled).flatMap(
        (d) => this.settle(d.id, now, { status: "queued", waitingReason: null }) ?? [],
      );
      return { settled, released };
    })();
  }

  /** Appointments left waiting for a lead that is already settled (by a process that predates settleReleasing). */
  releaseOrphanedDependents(now: number): number {
    return this.ctx.sqlite
      .prepare(
        `update submissions set status = 'queued', waiting_reason = null, updated_at = ?
         where status = 'waiting' and kind = 'appointment'
           and exists (select 1 from submissions lead
             where lead.id = json_extract(submissions.canonical_body, '$.leadId') and lead.kind = 'lead'
               and lead.company_id = submissions.company_id and lead.vendor_key_id = submissions.vendor_key_id
               and lead.status in ('forwarded', 'failed'))`,
      )
      .run(new Date(now).toISOString()).changes;
  }

  /** Appointments of the lead's own vendor key waiting for it (`leadId` = its `sub_…` id) to be forwarded. */
  dependents(lead: Pick<SubmissionRow, "id" | "companyId" | "vendorKeyId">): SubmissionRow[] {
    return this.ctx.db
      .select()
      .from(submissions)
      .where(
        and(
          eq(submissions.status, "waiting"),
          eq(submissions.kind, "appointment"),
          eq(submissions.companyId, lead.companyId),
          eq(submissions.vendorKeyId, lead.vendorKeyId),
          sql`json_extract(${submissions.canonicalBody}, '$.leadId') = ${lead.id}`,
        ),
      )
      .all();
  }

  /**
   * Pauses a credential refused with its key `version`, and its submissions wait. False (nothing changed) when the
   * credential was rotated since that key was sent: a late 401 of the old key says nothing about the new one.
   */
  pauseCredential(credentialId: string, reason: string, now: number, version: number): boolean {
    const at = new Date(now).toISOString();
    return this.ctx.sqlite.transaction(() => {
      const paused = this.ctx.db
        .update(upstreamCredentials)
        .set({ status: "paused", pausedReason: reason })
        .where(and(eq(upstreamCredentials.id, credentialId), eq(upstreamCredentials.version, version)))
        .run().changes;
      if (paused === 0) return false;
      this.ctx.db
        .update(submissions)
        .set({ status: "waiting", waitingReason: `credential paused: ${reason}`, leaseUntil: null, updatedAt: at })
        .where(and(eq(submissions.credentialId, credentialId), inArray(submissions.status, ["queued", "forwarding"])))
        .run();
      return true;
    })();
  }

  /**
   * Submissions still queued on a paused credential wait with the others (`credentialId`: that one only, else all).
   * Intake queues whatever it accepts, so a submission accepted while the pause was being committed, or whose notice
   * was lost, would otherwise stay queued: the dispatcher admits only active credentials' submissions.
   */
  parkOnPausedCredentials(now: number, credentialId?: string): number {
    return this.ctx.sqlite
      .prepare(
        `update submissions
         set status = 'waiting', lease_until = null, updated_at = ?,
             waiting_reason = 'credential paused: ' ||
               (select coalesce(c.paused_reason, 'paused') from upstream_credentials c where c.id = submissions.credential_id)
         where status = 'queued'
           and credential_id in (select id from upstream_credentials where status != 'active' and (? is null or id = ?))`,
      )
      .run(new Date(now).toISOString(), credentialId ?? null, credentialId ?? null).changes;
  }

  /** A rotated credential resumes its backlog: what waited on it is queued again. */
  resumeCredential(credentialId: string, now: number): void {
    this.ctx.db
      .update(submissions)
      .set({ status: "queued", waitingReason: null, updatedAt: new Date(now).toISOString() })
      .where(
        and(
          eq(submissions.credentialId, credentialId),
          eq(submissions.status, "waiting"),
          sql`${submissions.waitingReason} like 'credential paused:%'`,
        ),
      )
      .run();
  }
}
