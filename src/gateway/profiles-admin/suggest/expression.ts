import type { Mapped, Missed } from "./writer.js";

/**
 * The suggested expression as an owner will read and edit it: one line per canonical field with a comment saying how
 * sure the suggester is and why, and a comment for each field it left out (docs/profiles.md, "Suggested profiles").
 */
export type Entry = { mapped: Mapped } | { missed: Missed };

/** Comment text from payload names: nothing in it may end the comment or break the line. */
export function comment(text: string): string {
  const clean = text
    .replace(/\*\//g, "* /")
    .replace(/\p{Cc}|[\u2028\u2029]/gu, " ")
    .slice(0, 400);
  return `/* ${clean} */`;
}

/** An object constructor of canonical fields, indented by `indent` spaces. */
export function objectOf(entries: readonly Entry[], indent: number): string {
  const pad = " ".repeat(indent + 2);
  const lines: string[] = [];
  const present = entries.filter((e): e is { mapped: Mapped } => "mapped" in e);
  for (const entry of entries) {
    if ("missed" in entry) {
      lines.push(`${pad}${comment(`${entry.missed.field}: not in the payloads — ${entry.missed.note}.`)}`);
      continue;
    }
    const { mapped } = entry;
    const last = mapped === present[present.length - 1]?.mapped;
    lines.push(`${pad}${comment(`${mapped.confidence}: ${mapped.reason}`)}`);
    lines.push(`${pad}${JSON.stringify(mapped.field)}: ${mapped.text}${last ? "" : ","}`);
  }
  return `{\n${lines.join("\n")}\n${" ".repeat(indent)}}`;
}

/** A block when there are bindings, the plain expression otherwise. */
export function block(bindings: readonly string[], body: string): string {
  if (bindings.length === 0) return body;
  const indented = body.replace(/\n/g, "\n  ");
  return `(\n${bindings.map((b) => `  ${b}`).join("\n")}\n  ${indented}\n)`;
}
