import type { JsonStrings } from "./json-in-string.js";
import { isValueName, labelOf, VALUE_WORDS } from "./list-words.js";
import { type PayloadPath, renderPath, renderSegments, type Segment } from "./path.js";
import type { Scalar } from "./scalar.js";
import { child, decodedAt, isItem, itemsOf, keyText, type ListReading, type Structure, valueAt } from "./structure.js";
import { tokenize } from "./tokens.js";

/** What names a value: its own field's words, the label of the item or object it is in, the names around it. */
export interface Naming {
  /** The field's own words; empty when the field only holds a value (`value`, `#text`, `answer`). */
  own: readonly string[];
  /** The words of the key naming its list item (`Email`, `PHONE_NUMBER`), or of a sibling `label`. */
  label: readonly string[];
  /** The words of the fields and lists it sits in, outermost first. */
  context: readonly string[];
  /** The name an owner recognises, for reasons: the field name or the item's key. */
  shown: string;
}

/** One value of one payload, where it is and what names it. */
export interface Occurrence {
  path: PayloadPath;
  /** The path as text (with its JSON-string root): the same place in every payload has the same id. */
  id: string;
  value: Scalar;
  naming: Naming;
  /** The object or key-value list it is in: its siblings are parts of the same thing (an address's lines). */
  group: string;
  order: number;
  depth: number;
}

interface Place {
  root?: string;
  segments: Segment[];
  /** Structural path (field names only): how list readings are looked up. */
  shape: string;
  context: string[];
  label?: { words: string[]; shown: string };
  /** The group its scalars belong to when not the object itself: a key-value list's items are one group. */
  group?: string;
  depth: number;
}

const MAX_DEPTH = 80;
/** Profiles are at most 100,000 characters (compile.ts): a suggestion reads a few dozen paths of at most this. */
const MAX_PATH_CHARS = 1_000;

/** The second pass: every scalar of one payload as an occurrence, lists read as `structure` decided. */
export function walkPayload(payload: unknown, structure: Structure, strings: JsonStrings): Occurrence[] {
  const found: Occurrence[] = [];
  let order = 0;
  const groupOf = (place: Place) => place.group ?? `${place.root ?? ""}|${renderSegments(place.segments) ?? ""}`;

  const emit = (place: Place, segments: Segment[], value: Scalar, naming: Naming, group: string) => {
    const rendered = renderSegments(segments);
    // A name JSONata cannot write, or a path so long that a few of them would pass the expression's own limit.
    if (rendered === undefined || rendered.length + (place.root?.length ?? 0) > MAX_PATH_CHARS) return;
    const path: PayloadPath = place.root === undefined ? { segments } : { root: place.root, segments };
    found.push({
      path,
      id: `${place.root ?? ""}|${rendered}`,
      value,
      naming,
      group,
      order: order++,
      depth: place.depth,
    });
  };

  const naming = (field: string, place: Place, sibling: string[] | undefined): Naming => {
    const words = tokenize(field);
    if (!isValueName(words)) {
      // A field named by a question's id (`Field1`, `input_5`) takes the question's label from elsewhere.
      const crossed = structure.labels.wordsForField(field, place.shape);
      const label = [...(place.label?.words ?? []), ...crossed];
      return { own: words, label, context: place.context, shown: field };
    }
    // `value`, `#text`: named by a sibling label, the item's key, or else the field the object is in.
    const label = sibling ?? place.label?.words ?? place.context.slice(-2);
    return { own: [], label, context: place.context, shown: place.label?.shown ?? field };
  };

  const visitObject = (object: Record<string, unknown>, place: Place, skip: ReadonlySet<string>) => {
    const sibling = siblingLabel(object);
    const group = groupOf(place);
    for (const [field, value] of Object.entries(object)) {
      if (skip.has(field)) continue;
      const segments = [...place.segments, { kind: "field" as const, name: field }];
      const shape = child(place.shape, field);
      const own = sibling?.field === field ? undefined : sibling?.words;
      if (Array.isArray(value) && !value.some((v) => isItem(v) || Array.isArray(v))) {
        // A list of values (`values: ["…"]`, address lines): its first, named as the list is.
        const first: unknown = value[0];
        if (first !== undefined) {
          emit(place, [...segments, { kind: "index", index: 0 }], first as Scalar, naming(field, place, own), group);
        }
        continue;
      }
      const inner = (): Place => ({
        ...place,
        segments,
        shape,
        context: [...place.context, ...tokenize(field)],
        group: undefined,
        depth: place.depth + 1,
      });
      if (typeof value === "object" && value !== null) {
        visitValue(value, inner());
        continue;
      }
      if (typeof value === "string" && place.root === undefined && structure.json.has(shape)) {
        const document = strings.decode(value);
        const root = document === undefined ? undefined : renderPath({ segments }, () => "");
        if (document !== undefined && root !== undefined) {
          visitValue(document, { ...inner(), root, segments: [], shape: decodedAt(shape) });
          continue;
        }
      }
      if (value !== undefined) emit(place, segments, value as Scalar, naming(field, place, own), group);
    }
  };

  const visitValue = (value: unknown, place: Place): void => {
    if (place.depth > MAX_DEPTH) return;
    if (Array.isArray(value)) {
      const reading = structure.lists.get(place.shape);
      const objects = value.filter(isItem);
      if (reading?.keyed && objects.length > 0) {
        visitKeyed(objects, reading, place);
        return;
      }
      const first: unknown = value[0];
      if (isItem(first) || Array.isArray(first)) {
        const segments = [...place.segments, { kind: "index" as const, index: 0 }];
        visitValue(first, { ...place, segments, shape: itemsOf(place.shape), depth: place.depth + 1 });
      }
      return;
    }
    if (!isItem(value)) return;
    const reading = structure.lists.get(place.shape);
    // A list of one sent as a bare object (XML's single <Phone>): read as the list it is elsewhere.
    if (reading?.keyed && valueAt(value, reading.key) !== undefined) visitKeyed([value], reading, place);
    else visitObject(value, place, NOTHING);
  };

  const visitKeyed = (
    items: Record<string, unknown>[],
    reading: Extract<ListReading, { keyed: true }>,
    place: Place,
  ) => {
    const keys = items.map((item) => valueAt(item, reading.key));
    const counts = new Map<string, number>();
    for (const key of keys) counts.set(keyText(key), (counts.get(keyText(key)) ?? 0) + 1);
    const seen = new Set<string>();
    const skip = new Set([reading.key[0] ?? "", ...(reading.typeKey ? [reading.typeKey] : [])]);
    const group = groupOf(place);
    for (const [index, item] of items.entries()) {
      const key = keys[index];
      if ((typeof key !== "string" && typeof key !== "number") || seen.has(String(key))) continue;
      seen.add(String(key));
      const type = reading.typeKey ? item[reading.typeKey] : undefined;
      const typeWords = typeof type === "string" ? tokenize(type).filter((w) => !VALUE_WORDS.has(w)) : [];
      const words = [...tokenize(String(key)), ...structure.labels.wordsFor(key, place.shape), ...typeWords];
      const segment: Segment = {
        kind: "filter",
        key: reading.key,
        value: key,
        first: (counts.get(String(key)) ?? 0) > 1,
      };
      visitObject(
        item,
        {
          ...place,
          segments: [...place.segments, segment],
          shape: itemsOf(place.shape),
          label: { words, shown: String(key) },
          group,
          depth: place.depth + 1,
        },
        skip,
      );
    }
  };

  visitValue(payload, { segments: [], shape: "", context: [], depth: 0 });
  return found;
}

const NOTHING: ReadonlySet<string> = new Set();

/** A `label`/`name` field beside a `value` in the same object (`{label: "email_address", value: "…"}`). */
function siblingLabel(object: Record<string, unknown>): { field: string; words: string[] } | undefined {
  const hasValue = Object.keys(object).some((field) => isValueName(tokenize(field)));
  if (!hasValue) return undefined;
  const field = labelOf(object);
  return field === undefined ? undefined : { field, words: tokenize(object[field] as string) };
}
