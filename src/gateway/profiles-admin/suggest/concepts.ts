import {
  CITY_WORDS,
  CONSENT_BLOCKERS,
  CONSENT_CHANNEL,
  CONSENT_WORDS,
  DURATION_WORDS,
  EMAIL_BLOCKERS,
  END_WORDS,
  ENVELOPE_WORDS,
  FIRST_WORDS,
  FORMER_WORDS,
  ID_BLOCKERS,
  ID_WORDS,
  LAST_WORDS,
  LINE2_WORDS,
  MEETING_WORDS,
  NAME_BLOCKERS,
  NOTES_BLOCKERS,
  NOTES_WORDS,
  PERSON_WORDS,
  PHONE_BLOCKERS,
  PHONE_WORDS,
  PLACE_WORDS,
  RECORD_WORDS,
  REGION_WORDS,
  SEQUENCE_BLOCKERS,
  START_WORDS,
  STREET_BLOCKERS,
  THE_PERSON,
  THING_WORDS,
  TIME_BLOCKERS,
  VISIT_WORDS,
  ZIP_WORDS,
  ZONE_WORDS,
} from "./vocabulary.js";
import type { Naming } from "./walk.js";

export { NOT_THE_PERSON, THE_PERSON } from "./vocabulary.js";

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

/** First or last names in one word: they need no "name" beside them. */
const RUN_TOGETHER_NAMES = new Set(["fname", "lname", "forename", "surname", "firstname", "lastname"]);

const hasAny = (words: ReadonlySet<string>, list: ReadonlySet<string>) => {
  for (const word of words) if (list.has(word)) return true;
  return false;
};

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
      if (primary.has("name") || primary.has("names") || hasAny(primary, RUN_TOGETHER_NAMES)) return 3;
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
