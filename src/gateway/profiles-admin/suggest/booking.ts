import { comment, type Entry, objectOf } from "./expression.js";
import { leadEntries } from "./lead.js";
import type { Leaf } from "./leaves.js";
import type { Reading } from "./reading.js";
import { type Picked, pickNotes, pickRecordIds } from "./record.js";
import { pickTimes } from "./times.js";
import type { Mapped } from "./writer.js";

export interface Booking {
  /** Block statements (`$bookingId := …;`) and the records list. */
  statements: string[];
  records: string;
  /** Every field with the record it belongs to (`lead.email`, `appointment.startsAt`). */
  entries: { record: "lead" | "appointment"; entry: Entry }[];
}

/**
 * A booking as the hooks contract's records ("Profiles of connections: records"): the person as a lead record, then
 * the visit as an appointment record without a `leadId`, which the gateway chains to the lead before it. Each record
 * carries the vendor's id for it; the booking's id also gives the appointment's idempotency key, and without one the
 * key is the lead's e-mail and the start, so a vendor's retry of the same booking still makes one submission.
 */
export function bookingRecords(r: Reading): Booking {
  const lead = leadEntries(r);
  const times = pickTimes(r);
  const start = "mapped" in times.startsAt ? times.startsAt.mapped.sources : [];
  const ids = pickRecordIds(r, oneBooking([...sourcesOf(lead, "email"), ...start]), start);
  const notes = pickNotes(r);
  const statements: string[] = [];
  const idVariable = (picked: Picked, name: string): string | undefined => {
    if (!("mapped" in picked)) return undefined;
    const known = statements.find((s) => s.endsWith(` := ${picked.mapped.text};`));
    if (known) return known.split(" := ")[0];
    statements.push(`${name} := ${picked.mapped.text};`);
    return name;
  };
  const leadId = idVariable(ids.lead, "$leadId");
  const bookingId = idVariable(ids.appointment, "$bookingId");
  if ("mapped" in times.startsAt) statements.push(`$startsAt := ${times.startsAt.mapped.text};`);
  const email = lead.find((e): e is { mapped: Mapped } => "mapped" in e && e.mapped.field === "email");
  const visit: Entry[] = [
    "mapped" in times.startsAt ? { mapped: { ...times.startsAt.mapped, text: "$startsAt" } } : times.startsAt,
    times.endsAt,
    notes,
    idempotencyKey(ids.appointment, bookingId, "mapped" in times.startsAt, email?.mapped),
  ];
  const record = (kind: string, picked: Picked, variable: string | undefined, body: string) => {
    const id =
      "mapped" in picked && variable
        ? `    ${comment(`${picked.mapped.confidence}: ${picked.mapped.reason}`)}\n    "id": ${variable},\n`
        : `    ${comment(`id: not in the payloads — ${"missed" in picked ? picked.missed.note : ""}.`)}\n`;
    return `  {\n    "kind": "${kind}",\n${id}    "body": ${body}\n  }`;
  };
  const records = `[\n${record("lead", ids.lead, leadId, objectOf(lead, 4))},\n${record("appointment", ids.appointment, bookingId, objectOf(visit, 4))}\n]`;
  return {
    statements,
    records,
    entries: [
      ...lead.map((entry) => ({ record: "lead" as const, entry })),
      { record: "lead", entry: ids.lead },
      ...visit.map((entry) => ({ record: "appointment" as const, entry })),
      { record: "appointment", entry: ids.appointment },
    ],
  };
}

function sourcesOf(entries: readonly Entry[], field: string): readonly Leaf[] {
  const found = entries.find((e): e is { mapped: Mapped } => "mapped" in e && e.mapped.field === field);
  return found?.mapped.sources ?? [];
}

/** Every payload has the same start and e-mail: one booking sent again, not several bookings. */
function oneBooking(leaves: readonly Leaf[]): boolean {
  return leaves.length > 0 && leaves.every((leaf) => leaf.distinct <= 1);
}

function idempotencyKey(id: Picked, variable: string | undefined, hasStart: boolean, email: Mapped | undefined): Entry {
  if ("mapped" in id && variable) {
    return {
      mapped: {
        field: "idempotencyKey",
        text: `${variable} ? "appointment:" & ${variable} : ()`,
        sources: id.mapped.sources,
        confidence: id.mapped.confidence,
        reason: "the booking's own id: a vendor's retry of the booking gives the same key.",
      },
    };
  }
  if (hasStart && email) {
    return {
      mapped: {
        field: "idempotencyKey",
        text: `${email.text} and $startsAt ? "appointment:" & ${email.text} & ":" & $startsAt : ()`,
        sources: email.sources,
        confidence: "guess",
        reason: "no booking id in the payloads: the lead's e-mail and the start, the same for a retry of one booking.",
      },
    };
  }
  return { missed: { field: "idempotencyKey", note: "no booking id, and no e-mail and start to make a key from" } };
}
