import { eq } from "drizzle-orm";
import { parseApiKey, secretMatches } from "../../contract/api-key.js";
import type { Caller, SandboxCtx } from "../context.js";
import { apiKeys } from "../db/schema/index.js";

/**
 * §5.1–5.2: finds the key behind an `x-api-key` value. Malformed, unknown, live (the sandbox is the test
 * environment), wrong-secret and revoked keys all answer `undefined` alike: the caller learns nothing about which.
 */
export function authenticateKey({
  ctx,
  input,
}: {
  ctx: SandboxCtx;
  input: { apiKey: string | undefined };
}): Caller | undefined {
  const parsed = parseApiKey(input.apiKey);
  if (parsed?.environment !== "test") return undefined;
  const row = ctx.db.select().from(apiKeys).where(eq(apiKeys.keyId, parsed.keyId)).get();
  if (!row || !secretMatches(parsed.secret, row.secretDigest) || row.revokedAt) return undefined;
  return {
    keyId: row.keyId,
    companyId: row.companyId,
    kind: row.kind,
    scopes: row.scopes,
    personId: row.personId,
    contractorId: row.contractorId,
  };
}
