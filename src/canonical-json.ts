import { hash } from "node:crypto";

/**
 * JSON with object keys sorted at every depth: two payloads that differ only in key order compare equal. Written
 * as one loop of string appends (it runs on every intake request): keys sort by UTF-16 code units, as `<` compares,
 * and properties whose value is undefined are left out, as JSON.stringify leaves them out.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += (i === 0 ? "" : ",") + canonicalJson(value[i]);
    return `${out}]`;
  }
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object).sort();
  let out = "{";
  for (const key of keys) {
    const item = object[key];
    if (item === undefined) continue;
    out += `${out.length === 1 ? "" : ","}${JSON.stringify(key)}:${canonicalJson(item)}`;
  }
  return `${out}}`;
}

export function canonicalDigest(value: unknown): string {
  return hash("sha256", canonicalJson(value), "hex");
}
