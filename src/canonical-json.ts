import { hash } from "node:crypto";

/** A container being written: an array, or an object with its keys in output order; and the next item to write. */
interface Frame {
  container: unknown[] | Record<string, unknown>;
  keys: string[] | undefined;
  size: number;
  next: number;
}

/**
 * JSON with object keys sorted at every depth: two payloads that differ only in key order compare equal. Keys sort by
 * UTF-16 code units, as `<` compares, and properties whose value is undefined are left out, as JSON.stringify leaves
 * them out. A loop over an explicit stack rather than recursion, so no nesting, however deep, runs out of the call stack
 * (docs/decisions.md, "Bounded input"); it runs on intake requests that carry an idempotency key.
 */
export function canonicalJson(value: unknown): string {
  let out = "";
  const stack: Frame[] = [];
  let item = value;
  for (;;) {
    if (item === null || typeof item !== "object") {
      out += JSON.stringify(item) ?? "null";
    } else if (Array.isArray(item)) {
      out += "[";
      stack.push({ container: item, keys: undefined, size: item.length, next: 0 });
    } else {
      const object = item as Record<string, unknown>;
      const keys = Object.keys(object)
        .filter((key) => object[key] !== undefined)
        .sort();
      out += "{";
      stack.push({ container: object, keys, size: keys.length, next: 0 });
    }
    // The next value to write, closing every container that has none left; done when the outermost is closed.
    for (;;) {
      const frame = stack.at(-1);
      if (!frame) return out;
      if (frame.next < frame.size) {
        if (frame.next > 0) out += ",";
        if (frame.keys) {
          const key = frame.keys[frame.next++] as string;
          out += `${JSON.stringify(key)}:`;
          item = (frame.container as Record<string, unknown>)[key];
        } else {
          item = (frame.container as unknown[])[frame.next++];
        }
        break;
      }
      out += frame.keys ? "}" : "]";
      stack.pop();
    }
  }
}

export function canonicalDigest(value: unknown): string {
  return hash("sha256", canonicalJson(value), "hex");
}
