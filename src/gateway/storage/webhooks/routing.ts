import { type RawBuilder, sql } from "kysely";
import { CompiledOnce, type On } from "../sql/compiled.js";
import type { StoreSql } from "../sql/store-sql.js";
import { byBytes } from "../sql/store-sql.js";
import type { EventRoutingStore } from "./port.js";
import type { ForwardedLead, NewBookedAppointment } from "./row.js";

/**
 * Lead → source and latest contact submission (compiled once: this runs in the settlement of every forwarded lead):
 * the first key that created the lead stays its source; the contact follows the latest submission (ids are
 * time-ordered), so recording an older submission again (the start-up repair) never takes the contact back.
 */
const REMEMBER_LEAD = new CompiledOnce((on, lead: ForwardedLead & { at: string }) =>
  on.db
    .insertInto("sourcedLeads")
    .values({
      companyId: lead.companyId,
      leadId: lead.leadId,
      vendorKeyId: lead.source,
      contactSubmissionId: lead.submissionId,
      createdAt: lead.at,
      updatedAt: lead.at,
    })
    .onConflict((conflict) =>
      conflict.columns(["companyId", "leadId"]).doUpdateSet((eb) => ({
        contactSubmissionId: later(on, "sourcedLeads.contactSubmissionId", "excluded.contactSubmissionId"),
        updatedAt: eb.ref("excluded.updatedAt"),
        vendorKeyId: eb.fn.coalesce("sourcedLeads.vendorKeyId", "excluded.vendorKeyId"),
      })),
    ),
);

/**
 * The later of two ids in byte order, as SQLite compares text (D-246): SQLite's scalar `max`; PostgreSQL's
 * `greatest`, in `COLLATE "C"` whatever the database's collation.
 */
function later(on: On, a: string, b: string): RawBuilder<string> {
  return on.dialect === "postgres"
    ? sql<string>`greatest(${byBytes(on, a)}, ${sql.ref(b)})`
    : sql<string>`max(${sql.ref(a)}, ${sql.ref(b)})`;
}

/** Records a booking; the first one of an appointment stays (a repeat does nothing). */
const REMEMBER_BOOKING = new CompiledOnce((on, row: NewBookedAppointment) =>
  on.db
    .insertInto("bookedAppointments")
    .values({
      companyId: row.companyId,
      appointmentId: row.appointmentId,
      vendorKeyId: row.vendorKeyId,
      submissionId: row.submissionId,
      leadId: row.leadId,
      createdAt: row.createdAt,
    })
    .onConflict((conflict) => conflict.doNothing()),
);

const CONTACT_SUBMISSION = new CompiledOnce((on, args: { companyId: string; leadId: string }) =>
  on.db
    .selectFrom("sourcedLeads")
    .select("contactSubmissionId")
    .where("companyId", "=", args.companyId)
    .where("leadId", "=", args.leadId),
);

const SOURCE = new CompiledOnce((on, args: { companyId: string; leadId: string }) =>
  on.db
    .selectFrom("sourcedLeads")
    .select("vendorKeyId")
    .where("companyId", "=", args.companyId)
    .where("leadId", "=", args.leadId)
    .where("vendorKeyId", "is not", null),
);

const BOOKER = new CompiledOnce((on, args: { companyId: string; appointmentId: string }) =>
  on.db
    .selectFrom("bookedAppointments")
    .select("vendorKeyId")
    .where("companyId", "=", args.companyId)
    .where("appointmentId", "=", args.appointmentId),
);

/**
 * What routes later platform events to the vendor that caused them (§1): the lead a lead source created (and the
 * latest submission carrying its contact), the appointment a booking vendor booked. Written in the settlement's
 * transaction, read when a platform event fans out; the statements of both are compiled once.
 */
export class SqlEventRoutingStore implements EventRoutingStore {
  readonly #sql: StoreSql;

  constructor(sql: StoreSql) {
    this.#sql = sql;
  }

  async rememberLead(lead: ForwardedLead, at: string): Promise<void> {
    await REMEMBER_LEAD.run(this.#sql, { ...lead, at });
  }

  /** The submission whose canonical body carries the lead's contact (the latest forwarded for it). */
  async contactSubmissionOf(companyId: string, leadId: string): Promise<string | undefined> {
    return (await CONTACT_SUBMISSION.run(this.#sql, { companyId, leadId })).rows[0]?.contactSubmissionId;
  }

  /** The lead source that created the lead, if one did through the gateway. */
  async sourceOf(companyId: string, leadId: string): Promise<string | undefined> {
    return (await SOURCE.run(this.#sql, { companyId, leadId })).rows[0]?.vendorKeyId ?? undefined;
  }

  async rememberBooking(row: NewBookedAppointment): Promise<void> {
    await REMEMBER_BOOKING.run(this.#sql, row);
  }

  /** The vendor key that booked the appointment through the gateway. */
  async bookerOf(companyId: string, appointmentId: string): Promise<string | undefined> {
    return (await BOOKER.run(this.#sql, { companyId, appointmentId })).rows[0]?.vendorKeyId;
  }

  /** A company's bookings through the gateway with the lead each was for (an erasure finds the person's by them). */
  bookingsOf(companyId: string): Promise<{ appointmentId: string; leadId: string | null }[]> {
    return this.#sql.db
      .selectFrom("bookedAppointments")
      .select(["appointmentId", "leadId"])
      .where("companyId", "=", companyId)
      .execute();
  }
}
