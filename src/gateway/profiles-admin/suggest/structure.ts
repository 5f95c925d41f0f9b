import type { JsonStrings } from "./json-in-string.js";
import { CrossLabels } from "./labels.js";
import { ID_WORDS, isValueName, KEY_WORDS, TYPE_WORDS } from "./list-words.js";
import { isDate, isEmail, isPhone } from "./shapes.js";
import { tokenize } from "./tokens.js";

/**
 * How a list of objects is read: as key-value pairs, one field naming each item (`key`, a path inside the item, e.g.
 * `["field", "ref"]`), optionally a field saying under which key the value sits (`typeKey`, Typeform-like answers);
 * or as a list of records, of which the first is read.
 */
export type ListReading = { keyed: true; key: readonly string[]; typeKey?: string } | { keyed: false };

export interface Structure {
  /** By the list's structural path (field names only, `[]` for list items, `#json` into a decoded string). */
  lists: Map<string, ListReading>;
  labels: CrossLabels;
  /**
   * String fields (by structural path) that hold a JSON document in every payload that fills them: only those are
   * decoded, since `$parseJson` fails the whole mapping on text that is not JSON.
   */
  json: ReadonlySet<string>;
}

type Item = Record<string, unknown>;

/** Items looked at per list path to choose how it is read: plenty to see a pattern, bounded for 1 MB payloads. */
const ITEMS_PER_LIST = 2_000;
/** An item with more scalar fields than this is a record (a person, an attendee), not a key and a value. */
const MAX_PAIR_WIDTH = 8;

export const isItem = (value: unknown): value is Item =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export const child = (parent: string, key: string) => `${parent}\u0001${key}`;
export const itemsOf = (list: string) => `${list}[]`;
export const decodedAt = (path: string) => `${path}#json`;

/** The first pass: every list of objects in every payload, and the labels questions give their ids. */
export function readStructure(payloads: readonly unknown[], strings: JsonStrings): Structure {
  const instances = new Map<string, Item[][]>();
  const labels = new CrossLabels();
  const counts = new Map<string, number>();
  const textFields = new Map<string, { json: number; text: number }>();
  const visit = (value: unknown, path: string, depth: number): void => {
    if (depth > 80) return;
    if (Array.isArray(value)) {
      const objects = value.filter(isItem);
      const seen = counts.get(path) ?? 0;
      if (objects.length > 0 && seen < ITEMS_PER_LIST) {
        const list = instances.get(path) ?? [];
        list.push(objects.slice(0, ITEMS_PER_LIST - seen));
        instances.set(path, list);
        counts.set(path, seen + objects.length);
      }
      for (const item of value) visit(item, itemsOf(path), depth + 1);
    } else if (isItem(value)) {
      labels.note(value, path.endsWith("[]") ? path.slice(0, -2) : path);
      for (const [key, inner] of Object.entries(value)) visit(inner, child(path, key), depth + 1);
    } else if (typeof value === "string" && value.trim() !== "") {
      const document = strings.decode(value);
      const seen = textFields.get(path) ?? { json: 0, text: 0 };
      if (document === undefined) seen.text++;
      else seen.json++;
      textFields.set(path, seen);
      if (document !== undefined) visit(document, decodedAt(path), depth + 1);
    }
  };
  for (const payload of payloads) visit(payload, "", 0);
  const lists = new Map<string, ListReading>();
  for (const [path, found] of instances) lists.set(path, chooseReading(found));
  const json = new Set([...textFields].filter(([, seen]) => seen.text === 0).map(([path]) => path));
  return { lists, labels, json };
}

interface KeyCandidate {
  key: string[];
  score: number;
}

/** Key-value or records: see docs/profiles.md, "Suggested profiles" (the lists it reads). */
export function chooseReading(instances: readonly Item[][]): ListReading {
  const items = instances.flat();
  if (items.length === 0) return { keyed: false };
  const widths = items.map(scalarCount).sort((a, b) => a - b);
  if ((widths[Math.floor(widths.length / 2)] ?? 0) > MAX_PAIR_WIDTH) return { keyed: false };
  const typeKey = findTypeKey(items);
  const candidates: KeyCandidate[] = [];
  for (const key of commonScalarPaths(items)) {
    if (key.length === 1 && key[0] === typeKey) continue;
    const score = keyScore(key, instances, items);
    if (score > 0) candidates.push({ key, score });
  }
  if (candidates.length === 0 && typeKey !== undefined && keyScore([typeKey], instances, items) > 0) {
    candidates.push({ key: [typeKey], score: 0.5 });
  }
  candidates.sort((a, b) => b.score - a.score);
  const best = candidates[0];
  if (best === undefined || !hasValuePart(items, best.key, typeKey)) return { keyed: false };
  return typeKey === undefined ? { keyed: true, key: best.key } : { keyed: true, key: best.key, typeKey };
}

function scalarCount(item: Item): number {
  let count = 0;
  for (const value of Object.values(item)) {
    if (isItem(value)) count += Object.values(value).filter((v) => !isItem(v) && !Array.isArray(v)).length;
    else if (!Array.isArray(value)) count++;
  }
  return count;
}

/** A field whose value names another field of the same item: `{type: "email", email: "…"}`. */
function findTypeKey(items: readonly Item[]): string | undefined {
  const first = items[0];
  if (!first) return undefined;
  for (const [field, value] of Object.entries(first)) {
    if (typeof value !== "string") continue;
    const naming = items.filter((item) => {
      const named = item[field];
      return typeof named === "string" && named !== field && Object.hasOwn(item, named);
    }).length;
    if (naming >= Math.max(1, Math.ceil(items.length * 0.8))) return field;
  }
  return undefined;
}

/** Scalar fields every item has, at its top or one object down (`field.ref`). */
function commonScalarPaths(items: readonly Item[]): string[][] {
  const first = items[0];
  if (!first) return [];
  const paths: string[][] = [];
  for (const [field, value] of Object.entries(first)) {
    if (typeof value === "string" || typeof value === "number") paths.push([field]);
    else if (isItem(value)) {
      for (const [inner, innerValue] of Object.entries(value)) {
        if (typeof innerValue === "string" || typeof innerValue === "number") paths.push([field, inner]);
      }
    }
  }
  return paths.filter((path) =>
    items.every((item) => {
      const value = valueAt(item, path);
      return typeof value === "string" || typeof value === "number";
    }),
  );
}

/**
 * A key's value as text, for telling items apart: a scalar's own text; every object and array the same text, as no
 * key (a vendor's `{"toString": 1}` would make String() throw: it is data, not a method).
 */
export function keyText(value: unknown): string {
  return typeof value === "object" && value !== null ? "\u0000object" : String(value);
}

export function valueAt(item: Item, path: readonly string[]): unknown {
  let value: unknown = item;
  for (const field of path) {
    if (!isItem(value)) return undefined;
    value = value[field];
  }
  return value;
}

/**
 * How well a field serves as the item's key: its values tell items apart in every list, are labels rather than data
 * (never an e-mail, a phone, a date), and its name says key (`name`, `label`, `column_id`) or id (`qid`). A readable
 * identifier (`PHONE_NUMBER`, `readable_ref_email`) beats a label with spaces, which beats a random id.
 */
function keyScore(key: readonly string[], instances: readonly Item[][], items: readonly Item[]): number {
  for (const list of instances) {
    const values = list.map((item) => keyText(valueAt(item, key)));
    if (new Set(values).size !== values.length) return 0;
  }
  const values = items.map((item) => valueAt(item, key));
  if (values.some((v) => typeof v === "string" && (v.length > 300 || isEmail(v) || isDate(v)))) return 0;
  if (values.some((v) => isPhone(v as string | number))) return 0;
  const words = key.flatMap((field) => tokenize(field));
  let score = 0;
  if (words.some((w) => KEY_WORDS.has(w))) score += 2;
  else if (words.some((w) => ID_WORDS.has(w))) score += 1;
  else if (words.some((w) => TYPE_WORDS.has(w))) score += 0.5;
  const strings = values.filter((v): v is string => typeof v === "string");
  const readable = strings.length === values.length && strings.every(readsAsWords);
  if (readable && strings.every((v) => !/\s/.test(v.trim()))) score += 1.5;
  else if (readable) score += 1;
  // A field named like nothing in particular keys its items only if its values read as labels.
  return words.length > 0 && score >= 1 ? score : 0;
}

/**
 * Words rather than a random id: most of its parts are three letters or more (`PHONE_NUMBER`, `readable_ref_email`,
 * "What is your name?"), unlike `DlXFaesGBpoF` or `q3`.
 */
function readsAsWords(value: string): boolean {
  const words = tokenize(value);
  return words.length > 0 && words.filter((w) => w.length >= 3 && /[aeiouy]/.test(w)).length * 2 >= words.length;
}

/** Beside the key, each item must hold a value: a `value`-like field, a typed value, or one other field. */
function hasValuePart(items: readonly Item[], key: readonly string[], typeKey: string | undefined): boolean {
  if (typeKey !== undefined) return true;
  const keyField = key[0];
  return items.every((item) => {
    const others = Object.keys(item).filter((field) => field !== keyField);
    return others.length === 1 || others.some((field) => isValueName(tokenize(field)));
  });
}
