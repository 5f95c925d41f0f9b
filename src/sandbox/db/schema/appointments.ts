import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { apiKeys } from "./api-keys.js";
import { companies } from "./companies.js";
import { leads } from "./leads.js";
import { projects } from "./projects.js";

/** §2.8 appointments, with the inbound idempotency key that created each (§8: scoped to the key owner). */
export const appointments = sqliteTable(
  "appointments",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    leadId: text("lead_id")
      .notNull()
      .references(() => leads.id),
    projectId: text("project_id").references(() => projects.id),
    keyId: text("key_id").references(() => apiKeys.keyId),
    startsAt: text("starts_at").notNull(),
    endsAt: text("ends_at").notNull(),
    notes: text("notes"),
    idempotencyKey: text("idempotency_key").notNull(),
    /** SHA-256 of the canonical JSON of the validated body: "identical" for replays (§4.2). */
    bodyDigest: text("body_digest").notNull(),
    /** Starts at 1; each move increases it (§6.1 resource.version of the appointment.booked event). */
    version: integer("version").notNull().default(1),
    /** How many identical replays were answered with this appointment (referee stats). */
    replays: integer("replays").notNull().default(0),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    // Serves the replay lookup by (owner, idempotencyKey) and makes a second booking under one key impossible (§8).
    uniqueIndex("appointments_idempotency_idx").on(t.companyId, t.idempotencyKey),
  ],
);

export type AppointmentRow = typeof appointments.$inferSelect;
