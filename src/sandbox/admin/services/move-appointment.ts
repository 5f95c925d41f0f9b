import { eq } from "drizzle-orm";
import { notFound } from "../../../http/errors.js";
import { isoAt } from "../../clock.js";
import type { SandboxCtx } from "../../context.js";
import { appointments, leads } from "../../db/schema/index.js";
import { recordEvent } from "../../events/record-event.js";
import { bookedEventData } from "../../inbound/services/booked-event.js";

export interface MovedAppointment {
  appointmentId: string;
  startsAt: string;
  endsAt: string;
  version: number;
  eventId: string;
}

/**
 * Admin stand-in for a change made in the platform: moves an appointment to new times. §6.7: appointment.booked
 * fires when an appointment is created *or moved*, so this records the event again with the next version.
 */
export function moveAppointment({
  ctx,
  input,
}: {
  ctx: SandboxCtx;
  input: { appointmentId: string; startsAt: string; endsAt: string };
}): MovedAppointment {
  return ctx.db.transaction((tx) => {
    const appointment = tx.select().from(appointments).where(eq(appointments.id, input.appointmentId)).get();
    if (!appointment) throw notFound("appointment not found");
    const lead = tx.select().from(leads).where(eq(leads.id, appointment.leadId)).get();
    if (!lead) throw notFound("appointment's lead not found");
    const version = appointment.version + 1;
    const moved = { ...appointment, startsAt: input.startsAt, endsAt: input.endsAt, version };
    tx.update(appointments)
      .set({ startsAt: input.startsAt, endsAt: input.endsAt, version, updatedAt: isoAt(ctx.clock) })
      .where(eq(appointments.id, appointment.id))
      .run();
    const eventId = recordEvent(tx, ctx.clock, {
      companyId: appointment.companyId,
      event: "appointment.booked",
      resource: { type: "appointment", id: appointment.id, version },
      data: bookedEventData(moved, lead, "moved"),
    });
    return { appointmentId: appointment.id, startsAt: input.startsAt, endsAt: input.endsAt, version, eventId };
  });
}
