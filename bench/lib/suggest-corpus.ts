import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ProfileProgram } from "../../src/gateway/profiles/program.js";
import type { Suggestion } from "../../src/gateway/profiles-admin/suggest/index.js";
import { suggestProfile } from "../../src/gateway/profiles-admin/suggest/index.js";

/**
 * The suggested-profile corpus (test/fixtures/suggest-corpus/README.md) and how a suggestion is scored on it: the
 * suggested expression evaluated on each payload by the profile engine's own program (JSONata with the shipped
 * helpers and guardrails), each canonical field compared with the expected value.
 */
export const CORPUS_DIR = "test/fixtures/suggest-corpus";
export const SUBSETS = ["tuning", "held-out"] as const;
export type Subset = (typeof SUBSETS)[number];

export interface Format {
  name: string;
  subset: Subset;
  kind: "lead" | "appointment";
  payloads: unknown[];
  expected: Record<string, unknown>[];
}

const LEAD_FIELDS = ["fullName", "email", "phone", "address", "smsConsent"];
const BOOKING_FIELDS = [
  ...["id", ...LEAD_FIELDS].map((f) => `lead.${f}`),
  ...["id", "startsAt", "endsAt", "notes"].map((f) => `appointment.${f}`),
];

export function loadCorpus(subsets: readonly Subset[] = SUBSETS): Format[] {
  return subsets.flatMap((subset) =>
    readdirSync(join(CORPUS_DIR, subset))
      .filter((file) => file.endsWith(".json"))
      .sort()
      .map((file) => ({ ...(JSON.parse(readFileSync(join(CORPUS_DIR, subset, file), "utf8")) as Format), subset })),
  );
}

export interface Score {
  fields: number;
  correct: number;
  wrong: number;
  invented: number;
  missed: number;
  /** One line per field that is not correct: `payload 2 lead.phone: expected "+1…", got "…"`. */
  notes: string[];
}

export const emptyScore = (): Score => ({ fields: 0, correct: 0, wrong: 0, invented: 0, missed: 0, notes: [] });

export function addScore(total: Score, score: Score): void {
  total.fields += score.fields;
  total.correct += score.correct;
  total.wrong += score.wrong;
  total.invented += score.invented;
  total.missed += score.missed;
}

/** Suggests a profile for the format from its payloads alone, evaluates it on each, and scores every field. */
export async function scoreFormat(format: Format): Promise<{ suggestion: Suggestion; score: Score }> {
  const suggestion = suggestProfile({ kind: format.kind, payloads: format.payloads });
  const program = new ProfileProgram(suggestion.expression);
  const score = emptyScore();
  const fields = format.kind === "lead" ? LEAD_FIELDS : BOOKING_FIELDS;
  for (const [index, payload] of format.payloads.entries()) {
    let produced: Record<string, unknown> = {};
    try {
      const output = await program.evaluate(structuredClone(payload), 1_000, performance.now() + 1_000);
      produced = flatten(format.kind, output);
    } catch (error) {
      score.notes.push(`payload ${index + 1}: the expression failed: ${(error as Error).message}`);
    }
    const expected = flattenExpected(format.kind, format.expected[index] ?? {});
    for (const field of fields) {
      const want = expected[field];
      const got = produced[field];
      if (want !== undefined) score.fields++;
      if (want !== undefined && got === undefined) {
        score.missed++;
        score.notes.push(`payload ${index + 1} ${field}: expected ${JSON.stringify(want)}, got nothing`);
      } else if (want !== undefined && JSON.stringify(got) === JSON.stringify(want)) {
        score.correct++;
      } else if (want !== undefined) {
        score.wrong++;
        score.notes.push(`payload ${index + 1} ${field}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
      } else if (got !== undefined) {
        score.invented++;
        score.notes.push(`payload ${index + 1} ${field}: expected nothing, got ${JSON.stringify(got)}`);
      }
    }
  }
  return { suggestion, score };
}

function flatten(kind: Format["kind"], output: unknown): Record<string, unknown> {
  if (kind === "lead") return isObject(output) ? output : {};
  const records = Array.isArray(output) ? output : [output];
  const flat: Record<string, unknown> = {};
  for (const kindName of ["lead", "appointment"]) {
    const record = records.find((r) => isObject(r) && r.kind === kindName);
    if (!isObject(record)) continue;
    if (record.id !== undefined) flat[`${kindName}.id`] = record.id;
    if (isObject(record.body)) for (const [k, v] of Object.entries(record.body)) flat[`${kindName}.${k}`] = v;
  }
  return flat;
}

function flattenExpected(kind: Format["kind"], expected: Record<string, unknown>): Record<string, unknown> {
  if (kind === "lead") return expected;
  const flat: Record<string, unknown> = {};
  for (const kindName of ["lead", "appointment"]) {
    const part = expected[kindName];
    if (isObject(part)) for (const [k, v] of Object.entries(part)) flat[`${kindName}.${k}`] = v;
  }
  return flat;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
