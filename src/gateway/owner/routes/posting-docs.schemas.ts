import { z } from "@hono/zod-openapi";
import { timestamp } from "./common.schemas.js";

/** A vendor key's posting docs (D-325…D-328). */

const answer = z.strictObject({
  status: z.number().int(),
  when: z.string(),
  retry: z.enum(["no", "after retry-after", "with backoff", "poll the status"]),
  headers: z.array(z.string()),
  /** Given only to a request that waits for the platform's answer. */
  waitedOnly: z.boolean(),
});

const rule = z.strictObject({ limit: z.number().int(), windowSeconds: z.number() });

const operation = z.strictObject({
  kind: z.enum(["lead", "appointment"]),
  method: z.literal("POST"),
  path: z.string(),
  url: z.string(),
  scope: z.enum(["leads:write", "appointments:write"]),
  /** The published version bound to the key now; null: the key takes the canonical body. */
  profile: z
    .strictObject({ versionId: z.string(), version: z.number().int(), publishedAt: timestamp.nullable() })
    .nullable(),
  /** The vendor's fields the bound version reads, derived from its expression (D-326). */
  fields: z.array(
    z.strictObject({
      path: z.string(),
      feeds: z.array(z.string()),
      types: z.array(z.string()),
      need: z.enum(["required", "oneOf", "optional"]),
      alternatives: z.array(z.string()).optional(),
      readAs: z.string().optional(),
      where: z.string().optional(),
    }),
  ),
  /** The canonical record the body becomes, as its validation checks it (§2.7/§2.8). */
  record: z.array(
    z.strictObject({ field: z.string(), type: z.string(), required: z.boolean(), rules: z.array(z.string()) }),
  ),
  example: z.strictObject({ name: z.string(), body: z.unknown() }).nullable(),
  headers: z.array(z.strictObject({ name: z.string(), required: z.boolean(), description: z.string() })),
  answers: z.array(answer),
});

export const postingDocs = z
  .strictObject({
    key: z.strictObject({
      id: z.string(),
      keyPrefix: z.string(),
      name: z.string(),
      environment: z.enum(["test", "live"]),
      responseMode: z.enum(["async", "sync"]),
    }),
    generatedAt: timestamp,
    baseUrl: z.string(),
    authentication: z.strictObject({ header: z.literal("x-api-key"), value: z.string() }),
    operations: z.array(operation),
    status: z.strictObject({ method: z.literal("GET"), path: z.string(), url: z.string(), answers: z.array(answer) }),
    rateLimits: z.strictObject({
      intake: z.strictObject({ ratePerSecond: z.number(), burst: z.number() }),
      forwarding: z.strictObject({ perCredential: rule, perCompany: rule, egress: rule }),
    }),
  })
  .openapi("PostingDocs");

/** The same, as the page the owner sends to the vendor. */
export const postingPage = z.string().openapi("PostingPage");
