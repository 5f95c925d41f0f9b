import { z } from "@hono/zod-openapi";
import { timestamp } from "./common.schemas.js";

/** Upstream credentials: the value goes in, never out (D-230). */

export const credentialBody = z
  .object({ name: z.string().min(1).max(100), value: z.string().min(10).max(300) })
  .openapi("UpstreamCredentialRequest");

export const credentialRotateBody = z.object({ value: z.string().min(10).max(300) }).openapi("CredentialRotation");

export const credential = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    keyPrefix: z.string(),
    version: z.number().int(),
    status: z.enum(["active", "paused"]),
    pausedReason: z.string().nullable(),
    createdAt: timestamp,
    rotatedAt: timestamp.nullable(),
  })
  .openapi("UpstreamCredential");

export const credentialList = z.strictObject({ credentials: z.array(credential) }).openapi("UpstreamCredentialList");
