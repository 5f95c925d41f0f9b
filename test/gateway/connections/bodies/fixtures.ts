import { expect } from "vitest";
import { HookBodyError, type HookBodyLimits, parseHookBody } from "../../../../src/gateway/connections/bodies/index.js";

/** Bodies written as vendors send them, and the refusals they get, for the tests of gateway/connections/bodies. */

export const BOUNDARY = "----hookbodies7MA4YWxkTrZu0gW";

export type Part = { name: string; value: string } | { name: string; filename: string; type?: string; value: string };

/** A multipart/form-data body (RFC 7578) of the given parts, closed unless `open`. */
export function multipart(parts: Part[], boundary = BOUNDARY): Buffer {
  const chunks = parts.map((part) => {
    const file = "filename" in part ? `; filename="${part.filename}"` : "";
    const type = "filename" in part && part.type ? `\r\nContent-Type: ${part.type}` : "";
    return `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${file}${type}\r\n\r\n${part.value}\r\n`;
  });
  return Buffer.from(`${chunks.join("")}--${boundary}--\r\n`);
}

export const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;

/** Form-urlencoded pairs, each name and value percent-encoded as a browser does (spaces as "+"). */
export function form(pairs: [string, string][]): Buffer {
  const encode = (text: string) => encodeURIComponent(text).replace(/%20/g, "+");
  return Buffer.from(pairs.map(([name, value]) => `${encode(name)}=${encode(value)}`).join("&"));
}

/** XML text content: the three characters that must be escaped, and CR as a reference (a literal one is a newline). */
export function xmlText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\r/g, "&#13;");
}

/** An attribute value in double quotes. */
export function xmlAttribute(text: string): string {
  return xmlText(text).replace(/"/g, "&quot;");
}

/** The expected tree of fields in order: a name repeated → an array of its values in order. */
export function grouped(pairs: [string, string][]): Record<string, string | string[]> {
  const fields = new Map<string, string | string[]>();
  for (const [name, value] of pairs) {
    const earlier = fields.get(name);
    fields.set(name, earlier === undefined ? value : [...(Array.isArray(earlier) ? earlier : [earlier]), value]);
  }
  return Object.fromEntries(fields);
}

/** The refusal a body gets: fails the test when it parses, or when anything but a HookBodyError is thrown. */
export async function refusal(
  body: Uint8Array,
  contentType: string | undefined,
  limits?: Partial<HookBodyLimits>,
): Promise<HookBodyError> {
  const outcome = await parseHookBody(body, contentType, limits).then(
    (tree) => ({ tree }),
    (error: unknown) => ({ error }),
  );
  if (!("error" in outcome))
    throw new Error(`expected a refusal, parsed ${JSON.stringify(outcome.tree).slice(0, 200)}`);
  expect(outcome.error).toBeInstanceOf(HookBodyError);
  return outcome.error as HookBodyError;
}

export const text = (body: string) => Buffer.from(body, "utf8");
