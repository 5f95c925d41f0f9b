import { pgTable, primaryKey, text } from "drizzle-orm/pg-core";

/** PostgreSQL twin of `../schema/booked-appointments.ts` (docs/decisions.md, "PostgreSQL"). */
export const bookedAppointments = pgTable(
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
