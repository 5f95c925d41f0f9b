import { eq } from "drizzle-orm";
import { digestSecret, secretMatches } from "../../../contract/api-key.js";
import { notFound, unauthorized } from "../../../http/errors.js";
import { isoAt } from "../../clock.js";
import type { SandboxCtx } from "../../context.js";
import { companies, ownerAccounts, ownerSessions } from "../../db/schema/index.js";
import { newSessionToken, SESSION_TTL_MS } from "./owner-credentials.js";

export interface OwnerSession {
  /** Shown once; present it as `Authorization: Bearer <token>` or the session cookie. */
  sessionToken: string;
  companyId: string;
  expiresAt: string;
}

/** The company an authenticated console request acts for (§5.7). */
export interface Owner {
  companyId: string;
}

/** `POST /partner-api/session`: the owner login. One message for an unknown company and a wrong password. */
export function createSession({
  ctx,
  input,
}: {
  ctx: SandboxCtx;
  input: { companyId: string; password: string };
}): OwnerSession {
  const account = ctx.db.select().from(ownerAccounts).where(eq(ownerAccounts.companyId, input.companyId)).get();
  if (!account || !secretMatches(input.password, account.passwordDigest)) {
    throw unauthorized("unknown company or wrong password");
  }
  return issueSession({ ctx, input: { companyId: account.companyId } });
}

/** Admin: a session for any company without its password (embedding code, tests). */
export function issueSession({ ctx, input }: { ctx: SandboxCtx; input: { companyId: string } }): OwnerSession {
  const company = ctx.db.select({ id: companies.id }).from(companies).where(eq(companies.id, input.companyId)).get();
  if (!company) throw notFound("company not found");
  const sessionToken = newSessionToken();
  const expiresAt = ctx.clock.now() + SESSION_TTL_MS;
  ctx.db
    .insert(ownerSessions)
    .values({ tokenDigest: digestSecret(sessionToken), companyId: company.id, expiresAt, createdAt: isoAt(ctx.clock) })
    .run();
  return { sessionToken, companyId: company.id, expiresAt: new Date(expiresAt).toISOString() };
}

/** The owner behind a session token, if the session exists and has not expired. */
export function authenticateSession({ ctx, input }: { ctx: SandboxCtx; input: { token: string } }): Owner | undefined {
  const row = ctx.db
    .select()
    .from(ownerSessions)
    .where(eq(ownerSessions.tokenDigest, digestSecret(input.token)))
    .get();
  if (!row || row.expiresAt <= ctx.clock.now()) return undefined;
  return { companyId: row.companyId };
}

/** `DELETE /partner-api/session`: the token stops working at once. */
export function endSession({ ctx, input }: { ctx: SandboxCtx; input: { token: string } }): void {
  ctx.db
    .delete(ownerSessions)
    .where(eq(ownerSessions.tokenDigest, digestSecret(input.token)))
    .run();
}
