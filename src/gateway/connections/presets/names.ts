import { z } from "zod";
import { compileProfile } from "../../profiles/index.js";

/** Shapes preset.json shares across its parts (docs/connections.md, "Presets"). */

/** A secret is named in a preset and sealed with the connection; the same rule as the proofs module's names. */
export const secretName = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/, "must be a secret name (a letter, then letters, digits, _ . -)");

/** RFC 9110 §5.1: a field name is a token. */
export const headerName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/, "must be a header name");

/**
 * A link to a vendor's public documentation: an http(s) URL, which may be followed by a note in words (which part of
 * the page, or a second page) after a space.
 */
export const docLink = z
  .string()
  .min(1)
  .max(2_000)
  .refine((text) => isWebUrl(text.split(/\s/, 1)[0] ?? ""), { message: "must start with an http(s) URL" });

function isWebUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const { protocol, hostname } = new URL(text);
  return (protocol === "https:" || protocol === "http:") && hostname !== "";
}

/**
 * A JSONata expression of the preset itself (`test`, `fetch.ids`): it must compile as a profile does (the same
 * syntax and linear-time regex rules), or the issue names the line and column.
 */
export const jsonataText = z
  .string()
  .min(1)
  .max(10_000)
  .superRefine((expression, issues) => {
    const compiled = compileProfile(expression);
    if (compiled.ok) return;
    const { message, line, column } = compiled.error;
    const where = line === undefined ? "" : ` (line ${line}, column ${column})`;
    issues.addIssue({ code: "custom", message: `does not compile: ${message}${where}` });
  });
