import { type RawBuilder, sql } from "kysely";
import { CompiledOnce, type On, pick } from "../sql/compiled.js";
import { byBytes, type StoreSql } from "../sql/store-sql.js";
import { columnsOf } from "../sql/values.js";
import type { ForwardedLead, NewBookedAppointment } from "./row.js";

/**
 * Lead → source and latest contact submission, in every forwarded lead's settlement: the first key that created the
 * lead stays its source; the contact follows the latest submission (ids are time-ordered), so recording an older one
 * again (the start-up repair) never takes the contact back.
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

const REMEMBER_BOOKING = new CompiledOnce((on, row: NewBookedAppointment) =>
  on.db
    .insertInto("bookedAppointments")
    .values(pick(row, columnsOf("bookedAppointments")))
    .onConflict((conflict) => conflict.doNothing()),
);

/** A lead's row: its latest contact submission, and its source (null when it only merged). */
const SOURCED_LEAD = new CompiledOnce((on, args: { companyId: string; leadId: string }) =>
  on.db
    .selectFrom("sourcedLeads")
    .select(["contactSubmissionId", "vendorKeyId"])
    .where("companyId", "=", args.companyId)
    .where("leadId", "=", args.leadId),
);

const BOOKER = new CompiledOnce((on, args: { companyId: string; appointmentId: string }) =>
  on.db
    .selectFrom("bookedAppointments")
    .select("vendorKeyId")
    .where("companyId", "=", args.companyId)
    .where("appointmentId", "=", args.appointmentId),
);

/** What routes later platform events to the vendor that caused them (§1), written in the settlement's transaction. */
export function sqlEventRoutingStore(store: StoreSql) {
  return {
    async rememberLead(lead: ForwardedLead, at: string) {
      await REMEMBER_LEAD.run(store, { ...lead, at });
    },
    /** The submission whose canonical body carries the lead's contact (the latest forwarded for it). */
    contactSubmissionOf: async (companyId: string, leadId: string) =>
      (await SOURCED_LEAD.run(store, { companyId, leadId })).rows[0]?.contactSubmissionId,
    /** The lead source that created the lead, if one did through the gateway. */
    sourceOf: async (companyId: string, leadId: string) =>
      (await SOURCED_LEAD.run(store, { companyId, leadId })).rows[0]?.vendorKeyId ?? undefined,
    /** Records a booking; the first one of an appointment stays (a repeat does nothing). */
    async rememberBooking(row: NewBookedAppointment) {
      await REMEMBER_BOOKING.run(store, row);
    },
    /** The vendor key that booked the appointment through the gateway. */
    bookerOf: async (companyId: string, appointmentId: string) =>
      (await BOOKER.run(store, { companyId, appointmentId })).rows[0]?.vendorKeyId,
    /** A company's bookings through the gateway with the lead each was for (an erasure finds the person's by them). */
    bookingsOf: (companyId: string) =>
      store.db
        .selectFrom("bookedAppointments")
        .select(["appointmentId", "leadId"])
        .where("companyId", "=", companyId)
        .execute(),
  };
}
