/**
 * The JSON types a vendor's field has in the profile's golden samples (D-326): each sample's payload is walked along
 * the path the profile reads (`contact.phones[].number`, `rawRequest → q4_email` through a JSON document in a
 * string). A field no sample carries has no type here.
 */
export function sampleTypes(payloads: readonly unknown[], path: string): string[] {
  const types = new Set<string>();
  for (const payload of payloads) for (const value of valuesAt([payload], path)) types.add(typeOf(value));
  return [...types].sort();
}

function valuesAt(roots: unknown[], path: string): unknown[] {
  let values = roots;
  const documents = path.split(" → ");
  for (const [index, part] of documents.entries()) {
    if (index > 0) values = values.flatMap(decoded);
    for (const step of part.split(".")) values = values.flatMap((value) => stepInto(value, step));
  }
  return values;
}

function stepInto(value: unknown, step: string): unknown[] {
  const match = /^(.*?)((?:\[\d*\])*)$/.exec(step);
  const name = match?.[1] ?? step;
  const filters = [...(match?.[2] ?? "").matchAll(/\[(\d*)\]/g)].map((m) => m[1]);
  // JSONata maps a name over a list: `phones.number` reads each item's number.
  let found = (Array.isArray(value) ? value : [value]).flatMap((item) =>
    isRecord(item) && name in item ? [item[name]] : [],
  );
  for (const index of filters) {
    found = found.flatMap((item) => {
      const items = Array.isArray(item) ? item : [item];
      if (index === "") return items;
      const picked = items[Number(index)];
      return picked === undefined ? [] : [picked];
    });
  }
  return found;
}

function decoded(value: unknown): unknown[] {
  if (typeof value !== "string") return [];
  try {
    return [JSON.parse(value)];
  } catch {
    return [];
  }
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
