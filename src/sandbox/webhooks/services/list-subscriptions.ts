import { asc, eq } from "drizzle-orm";
import { webhookSubscriptions } from "../../db/schema/index.js";
import type { ConsoleCtx } from "../console-ctx.js";
import { type SubscriptionView, subscriptionView } from "./subscription-view.js";

/** `GET /partner-api/webhooks`: the owner's subscriptions, oldest first. */
export function listSubscriptions({ ctx }: { ctx: ConsoleCtx }): SubscriptionView[] {
  return ctx.db
    .select()
    .from(webhookSubscriptions)
    .where(eq(webhookSubscriptions.companyId, ctx.owner.companyId))
    .orderBy(asc(webhookSubscriptions.id))
    .all()
    .map(subscriptionView);
}
