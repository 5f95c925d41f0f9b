import { type Candidate, rank } from "./candidates.js";
import { isBlank, type Leaf } from "./leaves.js";
import type { Reading } from "./reading.js";
import { wordSet } from "./word-set.js";
import type { Mapped, Missed } from "./writer.js";

export type Picked = { mapped: Mapped } | { missed: Missed };

const BOOKING_WORDS = wordSet("booking appointment appt reservation visit job slot event meeting");
const LEAD_WORDS = wordSet("lead request submission entry response ticket inquiry enquiry call");

/**
 * The vendor's own ids of the two records (the hooks contract's record `id`): a field named as the booking's, the
 * lead's or the record's id, in most payloads. Its value must differ in every payload — one value in every payload is
 * a form's or an account's id, and as an id it would make every later booking a retry of the first — unless the
 * payloads are one booking sent several times (`oneBooking`: the same start and e-mail in each). A lead's own id
 * (`leadOid`, `request_id`) names the lead record and a booking's (`appointmentId`) the appointment; a record's plain
 * `id` names both (docs/decisions.md, D-313).
 */
export function pickRecordIds(
  r: Reading,
  oneBooking: boolean,
  start: readonly Leaf[],
): { lead: Picked; appointment: Picked } {
  const ranked = rank(r.candidates, { concept: "recordId", shapes: ["id"] }, r.payloads).filter(
    (c) => c.name >= 2 && c.leaf.present * 2 > r.payloads && (oneBooking || c.leaf.distinct === c.leaf.present),
  );
  const about = (c: Candidate, words: ReadonlySet<string>) =>
    [...c.leaf.naming.own, ...c.leaf.naming.context].some((word) => words.has(word));
  const own = ranked.find((c) => !about(c, BOOKING_WORDS) && !about(c, LEAD_WORDS));
  const plain = own ?? ranked[0];
  // A record's own id only where it is there as often as the plain one; a booking's wherever there is a visit.
  const asOften = (c: Candidate) => plain === undefined || c.leaf.present >= plain.leaf.present;
  const withVisit = (c: Candidate) =>
    start.length > 0 && c.leaf.values.every((v, i) => !isBlank(v) || start.every((leaf) => isBlank(leaf.values[i])));
  const booking = ranked.find((c) => about(c, BOOKING_WORDS) && !about(c, LEAD_WORDS) && (asOften(c) || withVisit(c)));
  const lead = ranked.find((c) => about(c, LEAD_WORDS) && !about(c, BOOKING_WORDS) && asOften(c));
  return {
    lead: idOf(lead ?? plain ?? booking, r),
    // The record's own plain id (`uid`, `id` at the top) is the booking's when the payload is a booking.
    appointment: idOf(plainAtTop(own) ?? booking ?? plain ?? lead, r),
  };
}

/** A plain id at the payload's top (or inside its envelope): the id of what the payload is about. */
function plainAtTop(candidate: Candidate | undefined): Candidate | undefined {
  return candidate && candidate.name === 3 && candidate.leaf.depth <= 2 && !candidate.leaf.id.includes("[")
    ? candidate
    : undefined;
}

function idOf(candidate: Candidate | undefined, r: Reading): Picked {
  if (!candidate) return { missed: { field: "id", note: "no field is the record's own id" } };
  const { leaf } = candidate;
  const everywhere = leaf.values.every((v) => !isBlank(v));
  const unique = r.payloads >= 2 && leaf.distinct === leaf.present ? " and differs in every payload" : "";
  return {
    mapped: {
      field: "id",
      text: `$string($default(${r.writer.path(leaf)}, ()))`,
      sources: [leaf],
      confidence: r.payloads >= 2 && everywhere ? candidate.confidence : "guess",
      reason: `name \`${leaf.naming.shown}\` names the record's id${unique}.`,
    },
  };
}

/** §2.8 notes: the customer's notes or comments for the visit, never the staff's internal ones. */
export function pickNotes(r: Reading): Picked {
  // The same text in every payload is the form's or the event type's, not what this customer wrote.
  const best = rank(r.candidates, { concept: "notes", shapes: ["text"], person: true }, r.payloads).find(
    (c) => r.payloads < 2 || c.leaf.present < 2 || c.leaf.distinct > 1,
  );
  if (!best) return { missed: { field: "notes", note: "no notes or comments for the visit" } };
  return {
    mapped: {
      field: "notes",
      text: `$default(${r.writer.path(best.leaf)}, ())`,
      sources: [best.leaf],
      confidence: best.confidence,
      reason: `${best.reason} Left out where it is blank.`,
    },
  };
}
