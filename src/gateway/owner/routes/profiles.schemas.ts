import { z } from "@hono/zod-openapi";
import { id, json, timestamp } from "./common.schemas.js";
import { goldenReport, mappingOutcome } from "./golden.schemas.js";

/** Mapping profiles, their versions and the editor's tools (D-230). */

export const kind = z.enum(["lead", "appointment", "outbound"]);

export const profileBody = z
  .object({ name: z.string().min(1).max(100), kind, description: z.string().max(1000).nullable().optional() })
  .openapi("ProfileRequest");

export const sampleSchema = z
  .object({
    name: z.string().min(1).max(200),
    payload: z.unknown(),
    /** Bound as JSONata variables when the sample runs: a fetched record's `$notification` (D-320). */
    bindings: z.record(z.string(), z.unknown()).optional(),
    expect: z.union([
      z.object({ body: z.unknown() }),
      z.object({ records: z.array(z.unknown()).max(1000) }),
      z.object({
        error: z.object({
          field: z.string().max(200).optional(),
          kind: z.enum(["validation", "mapping", "guardrail"]).optional(),
        }),
      }),
    ]),
  })
  .openapi("GoldenSample");

export const versionBody = z
  .object({ expression: z.string().min(1).max(100_000), samples: z.array(sampleSchema).max(200) })
  .openapi("ProfileVersionRequest");

export const rollbackBody = z.object({ versionId: id }).openapi("Rollback");

export const previewBody = z
  .object({
    kind: z.enum(["lead", "appointment", "outbound"]),
    expression: z.string().min(1).max(100_000),
    payload: z.unknown(),
  })
  .openapi("PreviewRequest");

export const replayBody = z
  .object({
    keyId: id,
    kind: z.enum(["lead", "appointment"]),
    expression: z.string().min(1).max(100_000),
    limit: z.number().int().min(1).max(500).default(50),
  })
  .openapi("ReplayRequest");

const profileFields = {
  id: z.string(),
  companyId: z.string(),
  name: z.string(),
  kind: z.enum(["lead", "appointment", "outbound"]),
  description: z.string().nullable(),
  createdAt: timestamp,
};

export const profile = z.strictObject(profileFields).openapi("Profile");

export const profileVersion = z
  .strictObject({
    id: z.string(),
    profileId: z.string(),
    version: z.number().int(),
    expression: z.string(),
    samples: z.array(sampleSchema),
    status: z.enum(["draft", "published"]),
    samplesPassed: z.boolean(),
    createdAt: timestamp,
    publishedAt: timestamp.nullable(),
  })
  .openapi("ProfileVersion");

/** A version as publishing answers it: with the keys its samples' outputs drop, when there are some (D-321). */
export const publishedVersion = profileVersion
  .extend({
    warnings: z.array(z.strictObject({ sample: z.string(), key: z.string(), message: z.string() })).optional(),
  })
  .openapi("PublishedProfileVersion");

export const profileList = z
  .strictObject({
    profiles: z.array(
      z.strictObject({ ...profileFields, latestVersion: profileVersion.nullable(), boundKeys: z.array(z.string()) }),
    ),
  })
  .openapi("ProfileList");

export const versionList = z.strictObject({ versions: z.array(profileVersion) }).openapi("ProfileVersionList");

export const savedVersion = z
  .strictObject({ version: profileVersion, samples: goldenReport })
  .openapi("SavedProfileVersion");

export const rollback = z
  .strictObject({ profileId: z.string(), versionId: z.string(), reboundKeys: z.array(z.string()) })
  .openapi("ProfileRollback");

export const replay = z
  .strictObject({
    replayed: z.number().int(),
    changed: z.number().int(),
    results: z.array(
      z.strictObject({
        submissionId: z.string(),
        profileVersionId: z.string().nullable(),
        outcome: mappingOutcome,
        changes: z.array(z.strictObject({ field: z.string(), before: json, after: json })),
      }),
    ),
  })
  .openapi("ProfileReplay");
