import { z } from "@hono/zod-openapi";
import { timestamp } from "./common.schemas.js";

/** An owner's bearer tokens (D-230). */

export const tokenBody = z
  .object({ name: z.string().min(1).max(100), expiresInDays: z.number().int().min(1).max(3650).optional() })
  .openapi("TokenRequest");

const tokenView = z
  .strictObject({
    id: z.string(),
    name: z.string().nullable(),
    createdAt: timestamp,
    expiresAt: timestamp.nullable(),
    lastUsedAt: timestamp.nullable(),
  })
  .openapi("OwnerToken");

export const tokenList = z.strictObject({ tokens: z.array(tokenView) }).openapi("OwnerTokenList");

export const createdToken = z
  .strictObject({ id: z.string(), name: z.string(), token: z.string(), expiresAt: timestamp.nullable() })
  .openapi("CreatedOwnerToken");

export const revoked = z.strictObject({ revoked: z.literal(true) }).openapi("Revoked");
