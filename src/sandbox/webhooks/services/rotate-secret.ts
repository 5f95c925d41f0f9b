import { eq } from "drizzle-orm";
import { isoAt } from "../../clock.js";
import { webhookSubscriptions } from "../../db/schema/index.js";
import type { ConsoleCtx } from "../console-ctx.js";
import { newWebhookSecret, ringOf } from "../secrets.js";
import { ownSubscription } from "./subscription-view.js";

export interface RotatedSecret {
  id: string;
  /** §6.5.1: the next version number; load it into the receiver before activating. */
  pendingSecretVersion: number;
  /** Shown once. */
  secret: string;
  /** Still signing every delivery until activation. */
  currentSecretVersion: number;
}

/**
 * §4.3 rotate-secret, §6.5.1: a pending secret with the next version number, shown once; deliveries keep the current
 * version. Rotating again before activation replaces the unused pending secret with a new number.
 */
export function rotateSecret({ ctx, input }: { ctx: ConsoleCtx; input: { id: string } }): RotatedSecret {
  const row = ownSubscription(ctx, ctx.owner, input.id);
  const secret = newWebhookSecret();
  const ring = ringOf(row)
    .prune(Math.floor(ctx.clock.now() / 1000))
    .rotate(secret);
  ctx.db
    .update(webhookSubscriptions)
    .set({ secrets: ring.toState(), version: row.version + 1, updatedAt: isoAt(ctx.clock) })
    .where(eq(webhookSubscriptions.id, row.id))
    .run();
  return {
    id: row.id,
    pendingSecretVersion: ring.pendingVersion ?? 0,
    secret,
    currentSecretVersion: ring.currentVersion ?? 0,
  };
}
