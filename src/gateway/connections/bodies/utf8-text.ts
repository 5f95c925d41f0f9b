import { malformed } from "./hook-body-error.js";

/** Stateless between calls (no `stream` option), so one serves every body; a byte-order mark is dropped, as at intake. */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** The body's text: bytes that are not UTF-8 are refused rather than replaced (D-281). */
export function utf8Text(raw: Uint8Array, type: string): string {
  try {
    return UTF8.decode(raw);
  } catch (cause) {
    throw malformed(`the ${type} body is not UTF-8`, cause);
  }
}
