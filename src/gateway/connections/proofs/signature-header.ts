import type { HmacProof } from "./declaration.js";

/** D-288: a bound on what one header may carry, so a long header cannot make the verifier spin. */
export const MAX_SIGNATURES = 8;
const MAX_ELEMENTS = 16;

/** `t=1492774577,v1=5257a8…,v1=…` (Calendly) as its elements in order; undefined if one has no `=`. */
export function parseElements(value: string): Array<[string, string]> | undefined {
  const parts = value.split(",");
  if (parts.length > MAX_ELEMENTS) return undefined;
  const elements: Array<[string, string]> = [];
  for (const part of parts) {
    const at = part.indexOf("=");
    if (at <= 0) return undefined;
    elements.push([part.slice(0, at).trim(), part.slice(at + 1).trim()]);
  }
  return elements;
}

/** Whether `text` starts with `prefix`, ignoring case (`sha256=`, `Bearer `); the rest of it, or undefined. */
export function afterPrefix(text: string, prefix: string | undefined): string | undefined {
  if (prefix === undefined) return text;
  return text.slice(0, prefix.length).toLowerCase() === prefix.toLowerCase() ? text.slice(prefix.length) : undefined;
}

/**
 * A presented digest, strictly: exactly the digest's length, only the encoding's alphabet, base64 in its canonical
 * form. Anything else cannot be the declared HMAC and is malformed before any comparison (D-288).
 */
export function decodeDigest(text: string, encoding: "hex" | "base64", length: number): Buffer | undefined {
  if (encoding === "hex") {
    return text.length === length * 2 && /^[0-9a-fA-F]+$/.test(text) ? Buffer.from(text, "hex") : undefined;
  }
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return undefined;
  const bytes = Buffer.from(text, "base64");
  return bytes.length === length && bytes.toString("base64") === text ? bytes : undefined;
}

export type PresentedSignatures =
  | { kind: "signatures"; digests: Buffer[] }
  | { kind: "missing"; what: string }
  | { kind: "malformed"; what: string };

/**
 * The digests one signature header presents. Without `element` the header is one signature or a comma-separated list
 * of them (a header sent twice arrives joined); with it, the values of that element of a structured header.
 */
export function presentedSignatures(
  value: string,
  signature: HmacProof["signature"],
  digestLength: number,
): PresentedSignatures {
  const name = signature.header;
  let texts: string[];
  if (signature.element === undefined) {
    texts = value.split(",").map((part) => part.trim());
  } else {
    const elements = parseElements(value);
    if (elements === undefined) return { kind: "malformed", what: `${name} is not a list of name=value elements` };
    texts = elements.filter(([key]) => key === signature.element).map(([, text]) => text);
    if (texts.length === 0) return { kind: "missing", what: `${name} has no ${signature.element} element` };
  }
  if (texts.length > MAX_SIGNATURES) return { kind: "malformed", what: `${name} carries more than ${MAX_SIGNATURES}` };
  const digests: Buffer[] = [];
  for (const text of texts) {
    const encoded = afterPrefix(text, signature.prefix);
    const digest = encoded === undefined ? undefined : decodeDigest(encoded, signature.encoding, digestLength);
    if (digest === undefined) return { kind: "malformed", what: `${name} is not a ${signature.encoding} digest` };
    digests.push(digest);
  }
  return { kind: "signatures", digests };
}
