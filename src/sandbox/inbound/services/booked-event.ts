import type { AppointmentRow, LeadRow } from "../../db/schema/index.js";

/**
 * The platform's record of `appointment.booked` (§6.7 "an appointment was created or moved"; payload not shown,
 * §6.1). What leaves is a partner type's view of it (events/audience.ts): a booking vendor gets name, address and phone
 * for the visit it books, never quote or project data nor the e-mail (§1 partner types).
 */
export function bookedEventData(
  appointment: Pick<AppointmentRow, "id" | "leadId" | "projectId" | "startsAt" | "endsAt" | "notes">,
  lead: Pick<LeadRow, "fullName" | "email" | "phone" | "address">,
  change: "created" | "moved",
): Record<string, unknown> {
  return {
    change,
    appointmentId: appointment.id,
    leadId: appointment.leadId,
    ...(appointment.projectId ? { projectId: appointment.projectId } : {}),
    startsAt: appointment.startsAt,
    endsAt: appointment.endsAt,
    ...(appointment.notes ? { notes: appointment.notes } : {}),
    customer: { name: lead.fullName, email: lead.email, phone: lead.phone, address: lead.address },
  };
}
