import { z } from "@hono/zod-openapi";
import { chars } from "../../contract/chars.js";

/** §7 error body; additive fields (`field`, `scope`, `limits`) may follow. */
export const errorSchema = z.object({ error: z.string() }).openapi("Error");

/** §4.2, §8: `take` integer 1 to 200, default 50. */
export const takeQuerySchema = z.object({
  take: z
    .string()
    .regex(/^\d+$/, { message: "must be an integer from 1 to 200" })
    .transform(Number)
    .pipe(z.number().int().min(1, { message: "must be at least 1" }).max(200, { message: "must be at most 200" }))
    .optional()
    .default(50)
    .openapi({ param: { name: "take", in: "query" }, type: "integer", minimum: 1, maximum: 200, default: 50 }),
});

/** §4.2, §8: the contractor status note, 1 to 2,000 characters. */
export const jobNoteSchema = z.object({ note: chars(1, 2000) }).openapi("ContractorJobNote");

export const jobIdParamSchema = z.object({
  job_id: z.string().openapi({ param: { name: "job_id", in: "path" }, example: "prj_0123456789abcdef0123" }),
});

/** §2.9 contractor job. */
export const contractorJobSchema = z
  .object({
    id: z.string(),
    workOrderNo: z.string(),
    address: z.string(),
    city: z.string(),
    state: z.string(),
    zip: z.string(),
    stage: z.string(),
    installerNote: z.string(),
    lastUpdated: z.string(),
  })
  .openapi("ContractorJob");

export const jobListSchema = z.object({ jobs: z.array(contractorJobSchema) }).openapi("ContractorJobList");

/** §4.2 rule 4 (not shown): 201 with the note as recorded and the job as it now reads. */
export const appendedNoteSchema = z
  .object({
    note: z.object({ id: z.string(), note: z.string(), createdAt: z.string() }),
    job: contractorJobSchema,
  })
  .openapi("ContractorJobNoteResult");

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { "application/json": { schema } },
  description,
});

/** The §7 errors every inbound route can answer. */
export const inboundErrors = {
  400: json(errorSchema, "validation failed; the message names the field"),
  401: json(errorSchema, "key missing, malformed, unknown, revoked or of the wrong kind"),
  403: json(errorSchema, "key lacks the scope; the message names it"),
  413: json(errorSchema, "body over 1 MB"),
  415: json(errorSchema, "body is not JSON"),
  429: json(errorSchema, "rate limited; see retry-after and RateLimit"),
};

export { json };
