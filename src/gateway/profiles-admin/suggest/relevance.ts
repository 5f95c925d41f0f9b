import {
  CITY_WORDS,
  CONSENT_CHANNEL,
  CONSENT_WORDS,
  DURATION_WORDS,
  END_WORDS,
  FIRST_WORDS,
  ID_WORDS,
  LAST_WORDS,
  LINE2_WORDS,
  NOTES_WORDS,
  PERSON_WORDS,
  PHONE_WORDS,
  PLACE_WORDS,
  RECORD_WORDS,
  REGION_WORDS,
  START_WORDS,
  VISIT_WORDS,
  ZIP_WORDS,
  ZONE_WORDS,
} from "./vocabulary.js";
import type { Naming } from "./walk.js";

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
