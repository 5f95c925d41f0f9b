import { primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Which vendor key booked an appointment through the gateway (learnt from forwarding's 201 `{appointmentId}`), so the
 * platform's later `appointment.booked` for it reaches that vendor and no other (§1, §4.2 rule 2).
 */
export const bookedAppointments = sqliteTable(
  "booked_appointments",
  {
    companyId: text("company_id").notNull(),
    appointmentId: text("appointment_id").notNull(),
    vendorKeyId: text("vendor_key_id").notNull(),
    submissionId: text("submission_id").notNull(),
    leadId: text("lead_id"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    // Routing a platform appointment event: the booking vendor of (company, appointment).
    primaryKey({ columns: [t.companyId, t.appointmentId] }),
  ],
);
