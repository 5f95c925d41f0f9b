import { z } from "@hono/zod-openapi";
import { ERROR_CODE_LIST } from "../../../http/error-codes.js";
import { goldenReport } from "./golden.schemas.js";

/** The owner API's error body (D-231). */

/**
 * Every error of the owner API (§7 plus D-231): the message, a code from the closed list (docs/owner-api.md), the
 * request's id, and the additive fields some errors carry.
 */
export const ownerError = z
  .strictObject({
    error: z.string(),
    code: z.enum(ERROR_CODE_LIST),
    requestId: z.string(),
    /** The offending field of a 400 or 409. */
    field: z.string().optional(),
    /** Why a URL or a redelivery was refused. */
    reason: z.string().nullable().optional(),
    /** The nesting limit a body went past. */
    maxDepth: z.number().int().optional(),
    /** The profile whose name a new one repeats (409). */
    profileId: z.string().optional(),
    /** The golden samples that keep a version from being published (422). */
    samples: goldenReport.optional(),
    /** Where an expression fails to compile (400). */
    message: z.string().optional(),
    position: z.number().int().optional(),
    line: z.number().int().optional(),
    column: z.number().int().optional(),
  })
  .openapi("OwnerError");
