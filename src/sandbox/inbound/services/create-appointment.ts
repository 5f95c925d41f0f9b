import { and, eq, sql } from "drizzle-orm";
import { canonicalDigest } from "../../../canonical-json.js";
import type { Appointment } from "../../../contract/appointment.js";
import { conflict, notFound } from "../../../http/errors.js";
import { isoAt } from "../../clock.js";
import type { CallerCtx } from "../../context.js";
import { appointments, leads, projects } from "../../db/schema/index.js";
import { recordEvent } from "../../events/record-event.js";
import { newId } from "../../ids.js";
import { bookedEventData } from "./booked-event.js";

export interface AppointmentOutcome {
  /** `created` → 201; `replayed` → 200 with the original appointment (§4.2). */
  outcome: "created" | "replayed";
  appointmentId: string;
}

/**
 * POST /api/inbound/appointments (§2.8, §4.2). The idempotencyKey is scoped to the key owner (§8): the same key with
 * an identical body replays the original, with a different body is 409. Only then are the lead and project checked:
 * both must be the caller's company's, else 404 without saying whether they exist elsewhere (§7).
 */
export function createAppointment({ ctx, input }: { ctx: CallerCtx; input: Appointment }): AppointmentOutcome {
  const { caller } = ctx;
  // "Identical" compares meaning, not bytes: key order and whitespace do not make a different booking.
  const bodyDigest = canonicalDigest(input);
  const now = isoAt(ctx.clock);

  return ctx.db.transaction((tx) => {
    const existing = tx
      .select({ id: appointments.id, bodyDigest: appointments.bodyDigest })
      .from(appointments)
      .where(and(eq(appointments.companyId, caller.companyId), eq(appointments.idempotencyKey, input.idempotencyKey)))
      .get();
    if (existing) {
      if (existing.bodyDigest !== bodyDigest) {
        throw conflict("idempotencyKey was already used with a different body", { field: "idempotencyKey" });
      }
      tx.update(appointments)
        .set({ replays: sql`${appointments.replays} + 1` })
        .where(eq(appointments.id, existing.id))
        .run();
      return { outcome: "replayed", appointmentId: existing.id };
    }

    const lead = tx
      .select()
      .from(leads)
      .where(and(eq(leads.id, input.leadId), eq(leads.companyId, caller.companyId)))
      .get();
    if (!lead) throw notFound("lead not found");
    if (input.projectId !== undefined) {
      const project = tx
        .select({ id: projects.id })
        .from(projects)
        .where(and(eq(projects.id, input.projectId), eq(projects.companyId, caller.companyId)))
        .get();
      if (!project) throw notFound("project not found");
    }

    const appointmentId = newId("apt");
    const row = {
      id: appointmentId,
      companyId: caller.companyId,
      leadId: lead.id,
      projectId: input.projectId ?? null,
      keyId: caller.keyId,
      startsAt: input.startsAt,
      endsAt: input.endsAt,
      notes: input.notes ?? null,
      idempotencyKey: input.idempotencyKey,
      bodyDigest,
      version: 1,
      createdAt: now,
      updatedAt: now,
    };
    tx.insert(appointments).values(row).run();
    // §4.2 rule 2, §6.7: a booked appointment emits appointment.booked.
    recordEvent(tx, ctx.clock, {
      companyId: caller.companyId,
      // §4.2 rule 2: a booking through the Inbound API is caused by its key; a move is made in the platform.
      originKeyId: caller.keyId,
      event: "appointment.booked",
      resource: { type: "appointment", id: appointmentId, version: 1 },
      data: bookedEventData(row, lead, "created"),
    });
    return { outcome: "created", appointmentId };
  });
}
