import { SIGNATURE_SCHEME } from "./signing.js";

/** Fetch `Headers`, or Node's `IncomingHttpHeaders` (or any plain object; names are matched case-insensitively). */
export type HeaderSource = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

const V1_HEX = /^[0-9a-fA-F]{64}$/;
/** A bound on the signature list, so a huge header cannot make the verifier spin. */
const MAX_SIGNATURES = 8;

/** One header value; a header sent twice arrives joined (as `Headers` does) and then fails its format check. */
export function readHeader(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  let value = headers[name];
  if (value === undefined) {
    for (const [key, v] of Object.entries(headers)) if (key.toLowerCase() === name) value = v;
  }
  if (value === undefined) return undefined;
  return typeof value === "string" ? value : value.join(", ");
}

/**
 * §6.3.1: `v1=<hex>`. A comma-separated list is accepted and entries of other schemes are skipped, so a later scheme
 * can be sent alongside v1 without breaking receivers; at least one well-formed v1 entry is required.
 */
export function parseSignatures(header: string): Buffer[] | undefined {
  const parts = header.split(",");
  if (parts.length > MAX_SIGNATURES) return undefined;
  const v1: Buffer[] = [];
  for (const part of parts) {
    const [scheme, value, ...rest] = part.trim().split("=");
    if (scheme !== SIGNATURE_SCHEME) continue;
    if (value === undefined || rest.length > 0 || !V1_HEX.test(value)) return undefined;
    v1.push(Buffer.from(value, "hex"));
  }
  return v1.length > 0 ? v1 : undefined;
}
