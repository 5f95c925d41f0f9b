import { eq } from "drizzle-orm";
import { notFound } from "../../../http/errors.js";
import { isoAt } from "../../clock.js";
import type { SandboxCtx } from "../../context.js";
import { apiKeys } from "../../db/schema/index.js";

/** Admin: revokes a key; from the next request on it answers 401 (§7). Revoking twice keeps the first time. */
export function revokeKey({ ctx, input }: { ctx: SandboxCtx; input: { keyId: string } }): {
  keyId: string;
  revokedAt: string;
} {
  const row = ctx.db.select().from(apiKeys).where(eq(apiKeys.keyId, input.keyId)).get();
  if (!row) throw notFound("key not found");
  if (row.revokedAt) return { keyId: row.keyId, revokedAt: row.revokedAt };
  const revokedAt = isoAt(ctx.clock);
  ctx.db.update(apiKeys).set({ revokedAt }).where(eq(apiKeys.keyId, row.keyId)).run();
  return { keyId: row.keyId, revokedAt };
}
