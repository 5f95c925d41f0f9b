import { and, eq, isNotNull } from "drizzle-orm";
import { bookedAppointments, sourcedLeads } from "../../../../db/schema-pg/index.js";
import type { PgHandles } from "../../pg-handles.js";
import type { EventRoutingStore } from "../port.js";
import type { NewBookedAppointment } from "../routing.js";
import { run, STATEMENTS } from "./statements.js";

/** What routes later platform events to the vendor that caused them (§1), on PostgreSQL (as ../routing.ts). */
export class PostgresEventRoutingStore implements EventRoutingStore {
  readonly #handles: PgHandles;

  constructor(handles: PgHandles) {
    this.#handles = handles;
  }

  /** The first key that created the lead stays its source; the contact follows the latest submission. */
  async rememberLead(
    lead: { companyId: string; leadId: string; source: string | null; submissionId: string },
    at: string,
  ): Promise<void> {
    await run(this.#handles.client, STATEMENTS.rememberLead, [
      lead.companyId,
      lead.leadId,
      lead.source,
      lead.submissionId,
      at,
    ]);
  }

  async contactSubmissionOf(companyId: string, leadId: string): Promise<string | undefined> {
    const [row] = await this.#handles.db
      .select({ submissionId: sourcedLeads.contactSubmissionId })
      .from(sourcedLeads)
      .where(and(eq(sourcedLeads.companyId, companyId), eq(sourcedLeads.leadId, leadId)));
    return row?.submissionId;
  }

  async sourceOf(companyId: string, leadId: string): Promise<string | undefined> {
    const [row] = await this.#handles.db
      .select({ vendorKeyId: sourcedLeads.vendorKeyId })
      .from(sourcedLeads)
      .where(
        and(
          eq(sourcedLeads.companyId, companyId),
          eq(sourcedLeads.leadId, leadId),
          isNotNull(sourcedLeads.vendorKeyId),
        ),
      );
    return row?.vendorKeyId ?? undefined;
  }

  /** Records a booking (the first one of an appointment stays: a repeat does nothing). */
  async rememberBooking(row: NewBookedAppointment): Promise<void> {
    await this.#handles.db.insert(bookedAppointments).values(row).onConflictDoNothing();
  }

  async bookerOf(companyId: string, appointmentId: string): Promise<string | undefined> {
    const [row] = await this.#handles.db
      .select({ vendorKeyId: bookedAppointments.vendorKeyId })
      .from(bookedAppointments)
      .where(and(eq(bookedAppointments.companyId, companyId), eq(bookedAppointments.appointmentId, appointmentId)));
    return row?.vendorKeyId;
  }

  async bookingsOf(companyId: string): Promise<{ appointmentId: string; leadId: string | null }[]> {
    return this.#handles.db
      .select({ appointmentId: bookedAppointments.appointmentId, leadId: bookedAppointments.leadId })
      .from(bookedAppointments)
      .where(eq(bookedAppointments.companyId, companyId));
  }
}
