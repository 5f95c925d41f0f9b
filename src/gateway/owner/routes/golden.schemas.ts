import { z } from "@hono/zod-openapi";
import { json } from "./common.schemas.js";

/** What an evaluation of a profile answers: a mapped body, records, or why not, and a golden-sample report. */

/** Where a compile error is: 1-based line and column of the offending token's end, and its offset. */
const compileError = {
  message: z.string(),
  position: z.number().int().optional(),
  line: z.number().int().optional(),
  column: z.number().int().optional(),
};

/** A key the profile produced that the canonical body does not have: dropped, and said so (D-321). */
const droppedKeyWarning = z.strictObject({ key: z.string(), message: z.string() }).openapi("DroppedKeyWarning");

const guardrailLimit = z.enum(["time", "stack", "sequence", "regex", "memory", "output", "deadline", "crash"]);

/** One record a profile produced (docs/profiles.md, "Records"); a chained appointment's body has no leadId. */
const mappedRecord = z
  .strictObject({
    kind: z.enum(["lead", "appointment"]),
    id: z.string().optional(),
    body: json,
    test: z.boolean().optional(),
    action: z.enum(["create", "reschedule", "cancel"]).optional(),
    /** The vendor's other details the profile kept apart (D-320): stored, never sent upstream. */
    extras: z.record(z.string(), json).optional(),
  })
  .openapi("MappedRecord");

/**
 * What one evaluation of a profile produced (a mapped body, records in order, or why not), with its time. A profile
 * that produces one canonical body answers `body` as it always did; `records` only when it produced records.
 */
export const mappingOutcome = z
  .union([
    z.strictObject({
      ok: z.literal(true),
      body: json,
      extras: z.record(z.string(), json).optional(),
      dropped: z.array(z.string()).optional(),
      warnings: z.array(droppedKeyWarning).optional(),
      elapsedMs: z.number(),
    }),
    z.strictObject({
      ok: z.literal(true),
      records: z.array(mappedRecord),
      dropped: z.array(z.string()).optional(),
      warnings: z.array(droppedKeyWarning).optional(),
      elapsedMs: z.number(),
    }),
    z.strictObject({
      ok: z.literal(false),
      kind: z.literal("validation"),
      field: z.string(),
      message: z.string(),
      sourcePath: z.string().optional(),
      output: json,
      elapsedMs: z.number(),
    }),
    z.strictObject({
      ok: z.literal(false),
      kind: z.literal("mapping"),
      message: z.string(),
      position: z.number().int().optional(),
      elapsedMs: z.number(),
    }),
    z.strictObject({
      ok: z.literal(false),
      kind: z.literal("guardrail"),
      limit: guardrailLimit,
      message: z.string(),
      elapsedMs: z.number(),
    }),
  ])
  .openapi("MappingOutcome");

export const previewAnswer = z
  .union([mappingOutcome, z.strictObject({ ok: z.literal(false), kind: z.literal("compile"), ...compileError })])
  .openapi("PreviewAnswer");

export const goldenReport = z
  .strictObject({
    passed: z.boolean(),
    total: z.number().int(),
    failed: z.number().int(),
    results: z.array(
      z.strictObject({
        name: z.string(),
        passed: z.boolean(),
        reason: z.string().optional(),
        diff: z.array(z.strictObject({ path: z.string(), expected: json, actual: json })),
        outcome: mappingOutcome,
      }),
    ),
    compileError: z.strictObject(compileError).optional(),
    /** Keys a sample's output had that the canonical body does not (D-321); present only when there are some. */
    warnings: z.array(droppedKeyWarning.extend({ sample: z.string() })).optional(),
  })
  .openapi("GoldenReport");
