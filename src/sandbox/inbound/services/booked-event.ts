import type { AppointmentRow, LeadRow } from "../../db/schema/index.js";

/**
 * Payload of `appointment.booked` (§6.7 "an appointment was created or moved"; payload not shown, §6.1). A booking
 * vendor may see name, address and phone for the visit it books, never quote or project data (§1 partner types).
 */
export function bookedEventData(
  appointment: Pick<AppointmentRow, "id" | "leadId" | "projectId" | "startsAt" | "endsAt" | "notes">,
  lead: Pick<LeadRow, "fullName" | "phone" | "address">,
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
    customer: { name: lead.fullName, phone: lead.phone, address: lead.address },
  };
}
