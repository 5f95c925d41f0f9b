/** One difference between an expected and an actual JSON value; `undefined` on a side means the key is absent. */
export interface DiffEntry {
  path: string;
  expected: unknown;
  actual: unknown;
}

/** Structural JSON difference, by key and by index, so a failing golden sample says which field is wrong. */
export function jsonDiff(expected: unknown, actual: unknown, path = "$"): DiffEntry[] {
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const out: DiffEntry[] = [];
    for (let i = 0; i < Math.max(expected.length, actual.length); i++) {
      out.push(...jsonDiff(expected[i], actual[i], `${path}[${i}]`));
    }
    return out;
  }
  if (isObject(expected) && isObject(actual)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort();
    return keys.flatMap((key) => jsonDiff(expected[key], actual[key], `${path}.${key}`));
  }
  return Object.is(expected, actual) ? [] : [{ path, expected, actual }];
}

export function formatDiff(entry: DiffEntry): string {
  const show = (v: unknown) => (v === undefined ? "(absent)" : JSON.stringify(v));
  return `${entry.path}: expected ${show(entry.expected)}, got ${show(entry.actual)}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
