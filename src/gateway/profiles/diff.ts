/** One difference between an expected and an actual JSON value; `undefined` on a side means the key is absent. */
export interface DiffEntry {
  path: string;
  expected: unknown;
  actual: unknown;
}

/**
 * Structural JSON difference, by key and by index, so a failing golden sample says which field is wrong. Walked with
 * an explicit stack (depth-first, in order), so no nesting runs out of the call stack.
 */
export function jsonDiff(expected: unknown, actual: unknown, path = "$"): DiffEntry[] {
  const out: DiffEntry[] = [];
  const pending: DiffEntry[] = [{ path, expected, actual }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { expected: e, actual: a, path: at } = next;
    const children: DiffEntry[] = [];
    if (Array.isArray(e) && Array.isArray(a)) {
      for (let i = 0; i < Math.max(e.length, a.length); i++) {
        children.push({ path: `${at}[${i}]`, expected: e[i], actual: a[i] });
      }
    } else if (isObject(e) && isObject(a)) {
      for (const key of [...new Set([...Object.keys(e), ...Object.keys(a)])].sort()) {
        children.push({ path: `${at}.${key}`, expected: e[key], actual: a[key] });
      }
    } else {
      if (!Object.is(e, a)) out.push(next);
      continue;
    }
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i] as DiffEntry);
  }
  return out;
}

export function formatDiff(entry: DiffEntry): string {
  const show = (v: unknown) => (v === undefined ? "(absent)" : JSON.stringify(v));
  return `${entry.path}: expected ${show(entry.expected)}, got ${show(entry.actual)}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
