/**
 * The transaction boundary as a type (docs/decisions.md, D-371), checked by `npm run typecheck` (tsconfig includes
 * test/): every `@ts-expect-error` below marks a call that must not compile, and if one ever does, the unused
 * directive is itself the error. Beside each, the same work written as it should be, which must compile. Nothing here
 * runs (vitest takes *.test.ts only); the work written inline, which could still reach the `ctx` around it, is
 * test/architecture/transaction-work.test.ts's.
 */
import type { GatewayContext } from "../../src/gateway/context.js";
import type { TransactionContext } from "../../src/gateway/storage/transaction.js";
import { redeliverDelivery } from "../../src/gateway/webhooks/deliveries/redeliver.js";
import { enqueueVendorEvent, type VendorEvent } from "../../src/gateway/webhooks/enqueue.js";

declare const ctx: GatewayContext;
declare const event: VendorEvent;

/** Work inside a transaction has the transaction's stores, and nothing that reaches the pool or what runs. */
export async function inside(tx: TransactionContext) {
  // The transaction's own stores and the services that touch none: fine.
  await tx.submissions.get("sub_1");
  await enqueueVendorEvent(tx, event, tx.now().getTime());
  tx.log.debug({}, "inside");

  // @ts-expect-error a verb of the pool-level context cannot be handed the transaction's (it would reach the pool)
  await redeliverDelivery({ ctx: tx, companyId: "co_1", deliveryId: "whdel_1" });
  // @ts-expect-error what runs is told after the commit, never from inside (the row may yet roll back)
  tx.running.webhookDue("whsub_1", 0);
  // @ts-expect-error no transaction inside a transaction: on SQLite it would wait for the gate its own work holds
  await tx.transaction(async () => undefined);
  // @ts-expect-error nor the context's other services that do (the passwords' hashing reads no store, but is not needed)
  await tx.passwords.hash("secret");
}

/** Work that belongs in a transaction cannot be given the pool-level context, whose stores commit one by one. */
export async function outside() {
  // @ts-expect-error the GatewayContext has every store but is not a transaction's context
  await enqueueVendorEvent(ctx, event, Date.now());
  // @ts-expect-error nor is anything built from it by hand
  await enqueueVendorEvent({ ...ctx }, event, Date.now());

  // Fine: the same work, in a transaction.
  await ctx.transaction((tx) => enqueueVendorEvent(tx, event, Date.now()));
  await ctx.transaction(inside);
  await redeliverDelivery({ ctx, companyId: "co_1", deliveryId: "whdel_1" });
}
