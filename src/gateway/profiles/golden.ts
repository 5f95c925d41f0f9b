import { compileProfile } from "./compile.js";
import { type DiffEntry, jsonDiff } from "./diff.js";
import type { ProfileEngine } from "./engine.js";
import { type DroppedKeyWarning, droppedWarnings } from "./extras.js";
import { LIMITS } from "./limits.js";
import type { CompileError, GoldenSample, MappingOutcome, ProfileSource } from "./types.js";

export interface GoldenResult {
  name: string;
  passed: boolean;
  /** Why it failed, in a sentence; absent when it passed. */
  reason?: string;
  /** Field by field, for a sample that expected a body and got a different one. */
  diff: DiffEntry[];
  outcome: MappingOutcome;
}

export interface GoldenReport {
  /** Every sample passed, and there was at least one: a profile with no samples is untested, so unpublishable. */
  passed: boolean;
  total: number;
  failed: number;
  results: GoldenResult[];
  compileError?: CompileError;
  /** Keys a sample's output had that the canonical body does not (D-321): present only when there are some. */
  warnings?: (DroppedKeyWarning & { sample: string })[];
}

/** Samples are evaluated a few at a time: enough to use the pool, not enough to crowd out live intake. */
const CONCURRENCY = 4;

/**
 * Runs a profile's golden samples (docs/profiles.md: saving checks syntax and runs every sample; a version whose samples fail
 * cannot be published). Uses the same engine, guardrails and validation as intake, so a sample passes only if the
 * live path would produce exactly that body, or that error. `tooling`: run for the owner API, on the tooling lane
 * (engine.ts).
 */
export async function runGoldenSamples(
  engine: ProfileEngine,
  profile: ProfileSource & { samples: GoldenSample[] },
  options: { tooling?: boolean } = {},
): Promise<GoldenReport> {
  const total = profile.samples.length;
  const compiled = compileProfile(profile.expression);
  if (!compiled.ok) return { passed: false, total, failed: total, results: [], compileError: compiled.error };

  const results: GoldenResult[] = new Array(total);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < total; i = next++) {
      const sample = profile.samples[i];
      if (!sample) continue;
      // A sample checks what the profile produces, not how fast: a cold evaluator on a busy machine must not fail a
      // publish (or a start-up applying a config file). Runaways on real payloads are the suspect lane's business.
      const outcome = await engine.map(
        { ...profile, payload: sample.payload, ...(sample.bindings ? { bindings: sample.bindings } : {}) },
        { timeoutMs: LIMITS.sampleTimeoutMs, sample: true, ...(options.tooling ? { tooling: true } : {}) },
      );
      results[i] = judge(sample, outcome);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, total) }, lane));
  const failed = results.filter((r) => !r.passed).length;
  const warnings = results.flatMap((r) => droppedWarnings(r.outcome).map((w) => ({ sample: r.name, ...w })));
  const report: GoldenReport = { passed: total > 0 && failed === 0, total, failed, results };
  if (warnings.length > 0) report.warnings = warnings;
  return report;
}

export function judge(sample: GoldenSample, outcome: MappingOutcome): GoldenResult {
  const result = (reason?: string, diff: DiffEntry[] = []): GoldenResult =>
    reason === undefined
      ? { name: sample.name, passed: true, diff, outcome }
      : { name: sample.name, passed: false, reason, diff, outcome };
  const expect = sample.expect;
  if ("body" in expect) {
    if (!outcome.ok || !("body" in outcome)) return result(`expected a body, got ${describe(outcome)}`);
    const diff = jsonDiff(expect.body, outcome.body);
    return diff.length === 0 ? result() : result(`the body differs in ${diff.length} place(s)`, diff);
  }
  if ("records" in expect) {
    // D-303: exactly these records, in order; the diff names them as the error does (`records[1].body.startsAt`).
    if (!outcome.ok || !("records" in outcome)) return result(`expected records, got ${describe(outcome)}`);
    const diff = jsonDiff(expect.records, outcome.records, "records");
    return diff.length === 0 ? result() : result(`the records differ in ${diff.length} place(s)`, diff);
  }
  const { field, kind = field === undefined ? undefined : "validation" } = expect.error;
  if (outcome.ok)
    return result(`expected ${kind ?? "an"} error${field ? ` on ${field}` : ""}, got ${describe(outcome)}`);
  if (kind && outcome.kind !== kind) return result(`expected a ${kind} error, got ${describe(outcome)}`);
  if (field !== undefined && (outcome.kind !== "validation" || outcome.field !== field)) {
    return result(`expected a validation error on ${field}, got ${describe(outcome)}`);
  }
  return result();
}

export function describe(outcome: MappingOutcome): string {
  if (outcome.ok && "records" in outcome) {
    const count = outcome.records.length;
    return `${count} valid record${count === 1 ? "" : "s"} (${outcome.records.map((r) => r.kind).join(", ")})`;
  }
  if (outcome.ok) return "a valid body";
  if (outcome.kind === "validation") {
    const from = outcome.sourcePath ? ` (from ${outcome.sourcePath})` : "";
    return `a validation error on ${outcome.field || "(body)"}${from}: ${outcome.message}`;
  }
  if (outcome.kind === "mapping") {
    return `a mapping error${outcome.position === undefined ? "" : ` at ${outcome.position}`}: ${outcome.message}`;
  }
  return `a guardrail error (${outcome.limit}): ${outcome.message}`;
}
