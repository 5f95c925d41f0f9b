import { z } from "@hono/zod-openapi";
import { email } from "./common.schemas.js";

/** Signing in and the session (D-230). */

/** Passwords are hashed whole; a passphrase needs nothing near this. */
const password = z.string().min(1).max(1024);

export const signInBody = z.object({ email, password }).openapi("SignIn");

const role = z.enum(["admin", "viewer"]);

export const principal = z
  .strictObject({
    ownerId: z.string(),
    companyId: z.string(),
    role,
    email: z.string(),
    tokenId: z.string(),
    kind: z.enum(["session", "token"]),
  })
  .openapi("OwnerPrincipal");

export const signedIn = z
  .strictObject({
    owner: z.strictObject({ id: z.string(), email: z.string(), name: z.string(), role }),
    csrfToken: z.string(),
  })
  .openapi("SignedIn");

export const currentSession = z
  .strictObject({ owner: principal, csrfToken: z.string().nullable(), operator: z.boolean() })
  .openapi("CurrentSession");

export const signedOut = z.strictObject({ signedOut: z.literal(true) }).openapi("SignedOut");
