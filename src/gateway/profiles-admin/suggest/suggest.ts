import { compileProfile } from "../../profiles/compile.js";
import { HELPERS } from "../../profiles/helpers/index.js";
import { bookingRecords } from "./booking.js";
import { mayMatter } from "./candidates.js";
import { SuggestionError } from "./errors.js";
import { block, comment, type Entry, objectOf } from "./expression.js";
import { JsonStrings } from "./json-in-string.js";
import { leadEntries } from "./lead.js";
import { type Leaf, mergeLeaves } from "./leaves.js";
import type { Reading } from "./reading.js";
import { readStructure } from "./structure.js";
import type { FieldSuggestion, SuggestInput, Suggestion, SuggestOptions } from "./types.js";
import { walkPayload } from "./walk.js";
import { PathWriter, shown } from "./writer.js";

/** Paths listed as unmapped at most: a 10,000-key payload is listed in part. */
export const MAX_UNMAPPED = 1_000;

/**
 * A starting profile for an unknown vendor, from a few of its payloads alone: no network, no model
 * (docs/profiles.md, "Suggested profiles"; docs/decisions.md, D-310…D-314). Pure and synchronous: the owner API runs
 * it on a thread of its own (runner.ts).
 */
export function suggestProfile(input: SuggestInput, options: SuggestOptions = {}): Suggestion {
  const parseJson = options.parseJson ?? Object.hasOwn(HELPERS, "parseJson");
  const payloads = distinct(input.payloads);
  const strings = new JsonStrings();
  const structure = readStructure(payloads, strings);
  const leaves = mergeLeaves(payloads.map((payload) => walkPayload(payload, structure, strings)));
  const writer = new PathWriter();
  const usable = parseJson ? leaves : leaves.filter((leaf) => leaf.path.root === undefined);
  const reading: Reading = {
    leaves: usable,
    candidates: usable.filter(mayMatter),
    payloads: payloads.length,
    writer,
  };
  const header = [comment(`Suggested from ${input.payloads.length} payload(s): check every field before publishing.`)];
  const undecoded = parseJson ? [] : [...new Set(leaves.flatMap((leaf) => (leaf.path.root ? [leaf.path.root] : [])))];
  for (const root of undecoded) {
    header.push(
      comment(`${root} holds a JSON document: reading inside it needs $parseJson, which this gateway lacks.`),
    );
  }
  let body: string;
  let entries: { field: string; entry: Entry }[];
  if (input.kind === "lead") {
    const lead = leadEntries(reading);
    body = block(writer.bindings(), objectOf(lead, 0));
    entries = lead.map((entry) => ({ field: fieldOf(entry), entry }));
  } else {
    const booking = bookingRecords(reading);
    body = block([...writer.bindings(), ...booking.statements], booking.records);
    entries = booking.entries.map(({ record, entry }) => ({ field: `${record}.${fieldOf(entry)}`, entry }));
  }
  const expression = `${header.join("\n")}\n${body}\n`;
  const compiled = compileProfile(expression);
  if (!compiled.ok) throw new SuggestionError(`the suggested expression does not compile: ${compiled.error.message}`);
  const used = new Set<Leaf>();
  const fields: FieldSuggestion[] = [];
  const missing: string[] = [];
  for (const { field, entry } of entries) {
    if ("missed" in entry) {
      missing.push(field);
      continue;
    }
    for (const leaf of entry.mapped.sources) used.add(leaf);
    const sourcePath = [...new Set(entry.mapped.sources.map(shown))].join(", ");
    fields.push({ field, sourcePath, confidence: entry.mapped.confidence, reason: entry.mapped.reason });
  }
  return { expression, fields, unmapped: unmappedPaths(leaves, used), missing };
}

/** The same payload sent twice says nothing more than once, and would make one lead look like a form's constants. */
function distinct(payloads: readonly unknown[]): unknown[] {
  const seen = new Set<string>();
  return payloads.filter((payload) => {
    const text = JSON.stringify(payload) ?? "undefined";
    if (seen.has(text)) return false;
    seen.add(text);
    return true;
  });
}

const fieldOf = (entry: Entry) => ("mapped" in entry ? entry.mapped.field : entry.missed.field);

function unmappedPaths(leaves: readonly Leaf[], used: ReadonlySet<Leaf>): string[] {
  const paths: string[] = [];
  for (const leaf of [...leaves].sort((a, b) => a.order - b.order)) {
    if (used.has(leaf)) continue;
    paths.push(shown(leaf));
    if (paths.length >= MAX_UNMAPPED) break;
  }
  return paths;
}
