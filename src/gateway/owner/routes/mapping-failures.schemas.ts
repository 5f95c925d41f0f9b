import { z } from "@hono/zod-openapi";
import { json, timestamp } from "./common.schemas.js";

/** Requests refused by a profile guardrail (D-230). */

export const mappingFailures = z
  .strictObject({
    failures: z.array(
      z.strictObject({
        id: z.string(),
        companyId: z.string(),
        vendorKeyId: z.string(),
        profileVersionId: z.string(),
        message: z.string(),
        rawPayload: json,
        createdAt: timestamp,
      }),
    ),
  })
  .openapi("MappingFailureList");
