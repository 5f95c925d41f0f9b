import { and, eq, isNotNull } from "drizzle-orm";
import { bookedAppointments, sourcedLeads } from "../../../db/schema/index.js";
import type { SqliteDatabase } from "../../../db/sqlite.js";
import type { StorageHandles } from "../handles.js";
import type { GateView } from "../sqlite-gate.js";
import type { EventRoutingStore } from "./port.js";

export type NewBookedAppointment = typeof bookedAppointments.$inferInsert;

/**
 * What routes later platform events to the vendor that caused them (§1): the lead a lead source created (and the
 * latest submission carrying its contact), the appointment a booking vendor booked. Written in the settlement's
 * transaction, read when a platform event fans out.
 */
export class SqliteEventRoutingStore implements EventRoutingStore {
  readonly #db: StorageHandles["db"];
  readonly #sqlite: SqliteDatabase;
  readonly #rememberLead;

  readonly #gate: GateView;

  constructor(handles: StorageHandles) {
    this.#gate = handles.gate;
    this.#db = handles.db;
    this.#sqlite = handles.sqlite;
    /**
     * Lead → source and latest contact submission (prepared once: this runs for every forwarded lead): the first key
     * that created the lead stays its source; the contact follows the latest submission (ids are time-ordered), so
     * recording an older submission again (the start-up repair) never takes the contact back.
     */
    this.#rememberLead = handles.sqlite.prepare(
      `INSERT INTO sourced_leads (company_id, lead_id, vendor_key_id, contact_submission_id, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (company_id, lead_id) DO UPDATE SET
         contact_submission_id = max(sourced_leads.contact_submission_id, excluded.contact_submission_id),
         updated_at = excluded.updated_at, vendor_key_id = coalesce(sourced_leads.vendor_key_id, excluded.vendor_key_id)`,
    );
  }

  async rememberLead(
    lead: { companyId: string; leadId: string; source: string | null; submissionId: string },
    at: string,
  ) {
    while (this.#gate.busy) await this.#gate.pass();
    this.#rememberLead.run(lead.companyId, lead.leadId, lead.source, lead.submissionId, at, at);
  }

  /** The submission whose canonical body carries the lead's contact (the latest forwarded for it). */
  async contactSubmissionOf(companyId: string, leadId: string): Promise<string | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .select({ submissionId: sourcedLeads.contactSubmissionId })
      .from(sourcedLeads)
      .where(and(eq(sourcedLeads.companyId, companyId), eq(sourcedLeads.leadId, leadId)))
      .get()?.submissionId;
  }

  /** The lead source that created the lead, if one did through the gateway. */
  async sourceOf(companyId: string, leadId: string): Promise<string | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return (
      this.#db
        .select({ vendorKeyId: sourcedLeads.vendorKeyId })
        .from(sourcedLeads)
        .where(
          and(
            eq(sourcedLeads.companyId, companyId),
            eq(sourcedLeads.leadId, leadId),
            isNotNull(sourcedLeads.vendorKeyId),
          ),
        )
        .get()?.vendorKeyId ?? undefined
    );
  }

  /** Records a booking (the first one of an appointment stays: a repeat does nothing). */
  async rememberBooking(row: NewBookedAppointment): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#db.insert(bookedAppointments).values(row).onConflictDoNothing().run();
  }

  /** The vendor key that booked the appointment through the gateway. */
  async bookerOf(companyId: string, appointmentId: string): Promise<string | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .select({ vendorKeyId: bookedAppointments.vendorKeyId })
      .from(bookedAppointments)
      .where(and(eq(bookedAppointments.companyId, companyId), eq(bookedAppointments.appointmentId, appointmentId)))
      .get()?.vendorKeyId;
  }

  /** A company's bookings through the gateway with the lead each was for (an erasure finds the person's by them). */
  async bookingsOf(companyId: string): Promise<{ appointmentId: string; leadId: string | null }[]> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#sqlite
      .prepare<[string], { appointmentId: string; leadId: string | null }>(
        "SELECT appointment_id AS appointmentId, lead_id AS leadId FROM booked_appointments WHERE company_id = ?",
      )
      .all(companyId);
  }
}
