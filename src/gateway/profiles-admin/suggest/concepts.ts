import type { Naming } from "./walk.js";
import { wordSet } from "./word-set.js";

/**
 * What a field's name can say it is: the canonical fields and the parts they are built from. Synonyms are generic
 * words in any convention (docs/profiles.md, "Suggested profiles"), never a vendor's own field names.
 */
export type Concept =
  | "email"
  | "phone"
  | "fullName"
  | "firstName"
  | "lastName"
  | "middleName"
  | "street"
  | "line2"
  | "city"
  | "region"
  | "zip"
  | "consent"
  | "start"
  | "end"
  | "date"
  | "time"
  | "endTime"
  | "duration"
  | "zone"
  | "notes"
  | "recordId";

/** Name strength: 3 says it outright, 2 says it with help from around it, 1 hints, 0 says nothing, -1 says not. */
export type NameScore = -1 | 0 | 1 | 2 | 3;

/** Someone other than the lead: the business, its staff, the vendor (their e-mail is not the lead's). */
export const NOT_THE_PERSON = wordSet(`
  agent agents rep reps representative company business businesses vendor partner provider providers organizer
  organiser organizers host hosts pro contractor technician tech employee staff advertiser affiliate referrer referral
  sales seller merchant dealer installer assigned assignee estimator office manager admin membership memberships
  guests doctor physician practitioner support team operator dispatcher sender emergency tracking forwarding
  organization organisation org firm employer brand store shop account accounts campaign variables variable metadata
  meta utm calculated settings definition config
`);

/** The people a lead is: being inside one of these supports a person's field. */
export const THE_PERSON = wordSet(`
  customer customers client clients contact contacts lead leads homeowner consumer requester patient guest person
  applicant caller invitee attendee attendees buyer prospect respondent submitter user visitor borrower tenant
  subscriber shopper student your you my me personal primary
`);

const EMAIL_BLOCKERS = wordSet(
  "opt optin consent subscribe subscribed newsletter verified valid type domain bounce status marketing",
);
const PHONE_WORDS = wordSet("phone phones telephone tel mobile cell cellphone cellular mob whatsapp msisdn");
const PHONE_BLOCKERS = wordSet(
  "fax ext extension country code type verified valid opt optin consent carrier status tracking forwarding did",
);
const NAME_BLOCKERS = wordSet(`
  first last given family sur surname middle maiden nick user username company business organization organisation org
  firm employer file form product service event campaign ad adset adgroup page category task job project street city
  state country region field question column key label type title plan list group team account site store location
  brand model make pet domain host app device browser package source vendor partner agent rep contractor pro provider
  staff employee assignee organizer calendar template tag status dealer installer estimator doctor physician
  technician tech sales seller merchant advertiser affiliate referrer
`);
const PERSON_WORDS = wordSet(`
  customer client contact lead homeowner consumer requester patient guest person applicant caller invitee attendee
  buyer prospect respondent submitter visitor borrower tenant subscriber shopper
`);
/** Things that have names of their own, which are not people's. */
const THING_WORDS = wordSet(`
  form forms category categories service services product products event events campaign campaigns page pages ad ads
  adset adgroup task tasks job project plan file calendar template tag status type item items option options question
  questions field fields column columns group team list source location site store brand model package
  app device browser venue room resource course class label labels tags addon addons color colors statuses
`);
const FIRST_WORDS = wordSet("first given fore forename fname firstname");
const LAST_WORDS = wordSet("last family sur surname lname lastname");
const SEQUENCE_BLOCKERS = wordSet(`
  time date seen visit at login payment call order purchase response touch interaction contact message modified updated
  activity event 4 four digits sync reply active update change
`);
const STREET_BLOCKERS = wordSet("email mail ip web url website mac 2 two city state zip postal country hash wallet");
const PLACE_WORDS = wordSet("location property premises site residence home");
const MEETING_WORDS = wordSet("event events meeting meetings venue conference video organizer host");
const LINE2_WORDS = wordSet("apt apartment suite unit");
const CITY_WORDS = wordSet("city town locality municipality");
const REGION_WORDS = wordSet("state province region");
const ZIP_WORDS = wordSet("zip zipcode postal postcode");
const CONSENT_CHANNEL = wordSet("sms text texts texting txt tcpa messages messaging");
const CONSENT_WORDS = wordSet(
  "consent consents opt optin opted agree agreed accept accepted permission ok allow allowed reminders",
);
const CONSENT_BLOCKERS = wordSet("email newsletter terms privacy policy tos gdpr cookie cookies");
/** Times that are not the visit: when the record was made, changed, sent, or an old slot. */
const TIME_BLOCKERS = wordSet(`
  created create creation updated update modified submitted submit received sent processed deleted cancelled canceled
  cancel expires expiry expiration expire birth dob born last landed occurred paid reminder notified booked
  rescheduled reschedule previous old original timestamp requested inserted logged viewed opened delivered
`);
const START_WORDS = wordSet("start starts starting begin begins beginning");
const END_WORDS = wordSet("end ends ending finish finishes until to");
const VISIT_WORDS = wordSet(`
  appointment appointments booking bookings visit slot slots reservation schedule scheduled meeting event session
  consultation inspection estimate job service preferred requested window
`);
const DURATION_WORDS = wordSet("duration length minutes mins min");
const ZONE_WORDS = wordSet("timezone tz tzid zone iana");
const NOTES_WORDS = wordSet("notes note comments comment instructions remarks memo message");
const NOTES_BLOCKERS = wordSet(
  "internal html private staff admin agent rep cancellation cancel reschedule rescheduling meeting",
);
const ID_WORDS = wordSet("id uid uuid guid oid ref reference number no code key");
const RECORD_WORDS = wordSet(`
  booking appointment appt reservation visit job lead request submission entry response ticket order confirmation
  call
`);
/** Envelopes around a vendor's record: an `id` inside one of these is the record's. */
const ENVELOPE_WORDS = wordSet("payload data body object record result resource detail details attributes");
const ID_BLOCKERS = wordSet(`
  form account company business campaign ad adset adgroup page user organizer calendar type question field template
  location site partner vendor source tracking utm session customer contact client service category version api
  webhook affiliate sub crm external gcl click parent team org owner membership member staff agent rep employee
  assignee provider doctor technician tech event conversation thread creative pixel device ip zip postal phone
  email tracking transaction payment invoice product item price plan
`);

const hasAny = (words: ReadonlySet<string>, list: ReadonlySet<string>) => {
  for (const word of words) if (list.has(word)) return true;
  return false;
};

/**
 * Every word that can make a field's own name or label say a concept, and the words around it that alone can (a
 * phone list, a booking): a leaf with none of them is nothing by its name, whatever the concept (blockers only ever
 * take away, so they are not needed here).
 */
const CONCEPT_WORDS = new Set([
  ...PHONE_WORDS,
  ...PERSON_WORDS,
  ...FIRST_WORDS,
  ...LAST_WORDS,
  ...PLACE_WORDS,
  ...LINE2_WORDS,
  ...CITY_WORDS,
  ...REGION_WORDS,
  ...ZIP_WORDS,
  ...CONSENT_CHANNEL,
  ...CONSENT_WORDS,
  ...START_WORDS,
  ...END_WORDS,
  ...VISIT_WORDS,
  ...DURATION_WORDS,
  ...ZONE_WORDS,
  ...NOTES_WORDS,
  ...ID_WORDS,
  ...RECORD_WORDS,
  ..."name names e mail email address addr street line st post code number contact call calls from when scheduled at datetime date day time f l middle".split(
    " ",
  ),
]);
const AROUND_WORDS = new Set([...PHONE_WORDS, ...VISIT_WORDS]);

/** Whether a field's name can say anything at all (most of a large payload's fields say nothing). */
export function namesSomething(naming: Naming): boolean {
  return (
    naming.own.some((w) => CONCEPT_WORDS.has(w)) ||
    naming.label.some((w) => CONCEPT_WORDS.has(w)) ||
    naming.context.some((w) => AROUND_WORDS.has(w))
  );
}

interface WordSets {
  primary: ReadonlySet<string>;
  context: ReadonlySet<string>;
  near: ReadonlySet<string>;
  /** Scores already worked out, by concept: each concept is asked about each leaf several times. */
  scores: Map<Concept, NameScore>;
}

/** Every concept asks about the same leaf's words: made once per leaf (a payload may have 10,000 of them). */
const wordSets = new WeakMap<Naming, WordSets>();

function setsOf(naming: Naming): WordSets {
  let sets = wordSets.get(naming);
  if (!sets) {
    const primary = new Set([...naming.own, ...naming.label]);
    let context: ReadonlySet<string> | undefined;
    let near: ReadonlySet<string> | undefined;
    sets = {
      primary,
      // Most leaves are settled by their own words: the others are put in sets only when asked for.
      get context() {
        context ??= new Set(naming.context);
        return context;
      },
      get near() {
        near ??= new Set([...primary, ...naming.context.slice(-3)]);
        return near;
      },
      scores: new Map(),
    };
    wordSets.set(naming, sets);
  }
  return sets;
}

/** How strongly a field's name says `concept` (docs/profiles.md, "Suggested profiles"). */
export function nameScore(concept: Concept, naming: Naming): NameScore {
  const sets = setsOf(naming);
  let score = sets.scores.get(concept);
  if (score === undefined) {
    score = scoreOf(concept, naming, sets);
    sets.scores.set(concept, score);
  }
  return score;
}

function scoreOf(concept: Concept, naming: Naming, sets: WordSets): NameScore {
  const { primary } = sets;
  switch (concept) {
    case "email": {
      if (hasAny(primary, EMAIL_BLOCKERS)) return -1;
      if (primary.has("email") || (primary.has("e") && primary.has("mail"))) return 3;
      return primary.has("mail") ? 2 : 0;
    }
    case "phone": {
      if (hasAny(primary, PHONE_BLOCKERS)) return -1;
      if (hasAny(primary, PHONE_WORDS)) return 3;
      if (primary.has("number") && (hasAny(sets.context, PHONE_WORDS) || hasAny(primary, PERSON_WORDS))) return 2;
      // `phones.home`, `Phones.Phone[@kind="work"]`: a phone by the list or object it is in.
      if (hasAny(new Set(naming.context.slice(-2)), PHONE_WORDS)) return 2;
      return primary.has("number") || primary.has("contact") ? 1 : 0;
    }
    case "fullName": {
      if (!primary.has("name") && !primary.has("names")) {
        return naming.own.length > 0 && naming.own.every((w) => PERSON_WORDS.has(w)) ? 1 : 0;
      }
      if (hasAny(primary, FIRST_WORDS) || hasAny(primary, LAST_WORDS) || primary.has("middle")) return -1;
      if (hasAny(primary, NAME_BLOCKERS)) return 0;
      // A bare `name` is the name of what it is in: `form.name`, `category.name` are a form's and a category's.
      if (naming.own.length === 1 && naming.label.length === 0) {
        const parent = naming.context.filter((word) => !ENVELOPE_WORDS.has(word)).at(-1);
        if (parent !== undefined && THING_WORDS.has(parent)) return -1;
      }
      return 3;
    }
    case "firstName":
    case "lastName": {
      const words = concept === "firstName" ? FIRST_WORDS : LAST_WORDS;
      // `f_name`, `l_name`: the initial of first or last, beside "name".
      const initial = concept === "firstName" ? "f" : "l";
      if (primary.has(initial) && primary.has("name") && naming.own.length <= 3) return 3;
      if (!hasAny(primary, words)) return 0;
      if (
        primary.has("name") ||
        primary.has("names") ||
        hasAny(primary, wordSet("fname lname forename surname firstname lastname"))
      )
        return 3;
      if (hasAny(primary, SEQUENCE_BLOCKERS)) return -1;
      return sets.near.has("name") || sets.context.has("name") ? 3 : 1;
    }
    case "middleName":
      return primary.has("middle") && (primary.has("name") || sets.context.has("name")) ? 3 : 0;
    case "street": {
      if (hasAny(primary, STREET_BLOCKERS) && !primary.has("1") && !primary.has("one")) return 0;
      if (primary.has("street") || primary.has("address") || primary.has("addr")) return 3;
      if (primary.has("line") && (primary.has("1") || primary.has("one"))) return sets.context.has("address") ? 3 : 2;
      // Words that may name a place, or something else: the value must say it is an address.
      // A meeting's or an event's location is where the business holds it, not the lead's address.
      return hasAny(primary, PLACE_WORDS) && !hasAny(sets.context, MEETING_WORDS) ? 1 : 0;
    }
    case "line2": {
      if (hasAny(primary, LINE2_WORDS)) return 3;
      const lineish = primary.has("line") || primary.has("address") || primary.has("addr") || primary.has("street");
      return lineish && (primary.has("2") || primary.has("two")) ? 3 : 0;
    }
    case "city":
      return hasAny(primary, CITY_WORDS) ? 3 : 0;
    case "region":
      if (primary.has("status")) return 0;
      return hasAny(primary, REGION_WORDS) ? 3 : primary.has("st") && naming.own.length <= 2 ? 1 : 0;
    case "zip":
      if (hasAny(primary, ZIP_WORDS) || (primary.has("post") && primary.has("code"))) return 3;
      return 0;
    case "consent": {
      if (hasAny(primary, CONSENT_BLOCKERS)) return -1;
      if (hasAny(primary, CONSENT_CHANNEL)) return 3;
      const phoneish = hasAny(primary, PHONE_WORDS) || primary.has("call") || primary.has("calls");
      return phoneish && hasAny(primary, CONSENT_WORDS) ? 2 : 0;
    }
    case "start":
    case "end":
    case "date":
    case "time":
    case "endTime":
      return timeScore(concept, primary, sets.context);
    case "duration":
      return hasAny(primary, DURATION_WORDS) ? 3 : 0;
    case "zone":
      if (hasAny(primary, ZONE_WORDS) || (primary.has("time") && primary.has("zone"))) return 3;
      return 0;
    case "notes":
      if (hasAny(primary, NOTES_BLOCKERS) || hasAny(sets.context, NOTES_BLOCKERS)) return -1;
      return hasAny(primary, NOTES_WORDS) ? 3 : 0;
    case "recordId": {
      if (hasAny(primary, ID_BLOCKERS)) return -1;
      if (!hasAny(primary, ID_WORDS)) return 0;
      if (hasAny(primary, RECORD_WORDS)) return 3;
      // A bare `id` names the record of the object it is in: at the top (inside an envelope), or in a booking.
      if (!naming.own.every((word) => ID_WORDS.has(word))) return 1;
      const around = naming.context.filter((word) => !ENVELOPE_WORDS.has(word));
      if (around.length === 0 || hasAny(new Set(around.slice(-2)), RECORD_WORDS)) return 3;
      return hasAny(sets.context, ID_BLOCKERS) || hasAny(sets.context, THE_PERSON) ? -1 : 1;
    }
  }
}

/** A slot inside one of these is the booking's old one (a reschedule's), not the visit. */
const FORMER_WORDS = wordSet("previous old original former rescheduled reschedule prior");

function timeScore(concept: Concept, primary: ReadonlySet<string>, context: ReadonlySet<string>): NameScore {
  if (hasAny(primary, TIME_BLOCKERS) || hasAny(context, FORMER_WORDS)) return -1;
  const starts = hasAny(primary, START_WORDS) || primary.has("from");
  const ends = hasAny(primary, END_WORDS);
  const visit = hasAny(primary, VISIT_WORDS) || hasAny(context, VISIT_WORDS);
  switch (concept) {
    case "start": {
      if (ends) return -1;
      if (starts) return 3;
      if (primary.has("when") || (primary.has("scheduled") && primary.size > 1)) return 3;
      const timed = primary.has("datetime") || (primary.has("date") && primary.has("time"));
      if (visit && (timed || primary.has("time") || primary.has("date") || primary.has("at"))) return 3;
      if (timed) return 2;
      return visit ? 1 : 0;
    }
    case "end":
    case "endTime":
      if (starts) return -1;
      return ends ? 3 : 0;
    case "date":
      if (ends) return -1;
      return primary.has("date") || primary.has("day") ? (visit || starts ? 3 : 2) : 0;
    case "time":
      if (ends) return -1;
      if (primary.has("time") || starts) return visit || starts ? 3 : 2;
      return 0;
    default:
      return 0;
  }
}
