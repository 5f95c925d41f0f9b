import { eq } from "drizzle-orm";
import { conflict } from "../../../http/errors.js";
import { isoAt } from "../../clock.js";
import { webhookSubscriptions } from "../../db/schema/index.js";
import type { ConsoleCtx } from "../console-ctx.js";
import { ringOf } from "../secrets.js";
import { ownSubscription } from "./subscription-view.js";

export interface ActivatedSecret {
  id: string;
  /** §6.5.3: every attempt from now on is signed with this version, retries of earlier events included. */
  currentSecretVersion: number;
  previousSecretVersion: number;
  /** End of the overlap a receiver should keep the previous version for (§6.5.3 "a short overlap"). */
  previousSecretValidUntil: string;
}

/**
 * §4.3 activate-secret `{pendingSecretVersion}`, §6.5.3. Only the pending version can be activated: anything else is
 * 409 naming the pending version (or saying there is none), so a stale console tab cannot activate a lost secret.
 */
export function activateSecret({
  ctx,
  input,
}: {
  ctx: ConsoleCtx;
  input: { id: string; pendingSecretVersion: number };
}): ActivatedSecret {
  const row = ownSubscription(ctx, ctx.owner, input.id);
  const nowSeconds = Math.floor(ctx.clock.now() / 1000);
  const ring = ringOf(row).prune(nowSeconds);
  const pending = ring.pendingVersion;
  const previous = ring.currentVersion ?? 0;
  if (pending === undefined) throw conflict("no pending secret: rotate first", { currentSecretVersion: previous });
  if (input.pendingSecretVersion !== pending) {
    throw conflict(
      `pendingSecretVersion ${input.pendingSecretVersion} is not pending; the pending version is ${pending}`,
      {
        pendingSecretVersion: pending,
      },
    );
  }
  const activated = ring.activate(pending, nowSeconds, ctx.webhooks.overlapSeconds);
  ctx.db
    .update(webhookSubscriptions)
    .set({ secrets: activated.toState(), version: row.version + 1, updatedAt: isoAt(ctx.clock) })
    .where(eq(webhookSubscriptions.id, row.id))
    .run();
  return {
    id: row.id,
    currentSecretVersion: pending,
    previousSecretVersion: previous,
    previousSecretValidUntil: new Date((nowSeconds + ctx.webhooks.overlapSeconds) * 1000).toISOString(),
  };
}
