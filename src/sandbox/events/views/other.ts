import { pick, type View } from "./render.js";

/**
 * appointment.booked for the company's own integration: the visit, its lead and project, and the customer as the
 * lead holds them (e-mail included: it is the company's data).
 */
export const licenseeBooked: View = (data) => {
  const customer = (data.customer ?? {}) as Record<string, unknown>;
  return {
    ...pick(data, ["change", "appointmentId", "leadId", "projectId", "startsAt", "endsAt", "notes"]),
    customer: pick(customer, ["name", "email", "phone", "address"]),
  };
};

/** §1 booking vendor: "name, address, phone for the visit it books; no quote or project data". */
export const bookingVendorBooked: View = (data) => {
  const customer = (data.customer ?? {}) as Record<string, unknown>;
  return {
    ...pick(data, ["change", "appointmentId", "leadId", "startsAt", "endsAt", "notes"]),
    customer: pick(customer, ["name", "phone", "address"]),
  };
};

/** Fields of every install.* payload (install-events.ts builds them from the §2.1 projection, itself an allow-list). */
const INSTALL_FIELDS = [
  "jobId",
  "installerCompanyId",
  "previousStatus",
  "status",
  "reason",
  "changedBy",
  "previousSchedule",
  "schedule",
  "previousReadiness",
  "readiness",
  "document",
  "occurredAt",
  "blockerCode",
  "note",
  "scopeVersionAcknowledged",
  "acceptedAt",
  "evidence",
  "scopeVersion",
  "job",
] as const;

/** §1 installer company (and the company itself): installer-safe data only, the Installer API's projection. */
export const installView: View = (data) => pick(data, INSTALL_FIELDS);

/** The on-demand test delivery (§6.7 install.test): the subscription's id and a message, for anyone. */
export const testView: View = (data) => pick(data, ["subscriptionId", "message"]);

/** §4.2 contractor note, for the company: the note and the project it is about. */
export const licenseeNote: View = (data) => pick(data, ["projectId", "workOrderNo", "noteId", "note", "createdAt"]);
