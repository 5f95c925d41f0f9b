import { describe, expect, it, vi } from "vitest";
import type { GatewayContext } from "../../../src/gateway/context.js";
import { Dispatcher } from "../../../src/gateway/forwarding/dispatcher.js";
import { StoreOutages } from "../../../src/gateway/outage/index.js";
import { createLogger } from "../../../src/log.js";

/** A context whose credentials are `paused`, counting the immediate transactions the dispatcher opens. */
function contextWith(paused: { id: string; reason: string }[]) {
  const parked: string[] = [];
  const inactive = async (id?: string) => paused.filter((c) => id === undefined || c.id === id);
  const tx = {
    credentials: { inactive },
    submissions: {
      parkOnCredential: async (credentialId: string) => {
        parked.push(credentialId);
        return 1;
      },
    },
  };
  const transaction = vi.fn(async (work: (stores: typeof tx) => Promise<unknown>, _mode?: string) => work(tx));
  const ctx = {
    submissions: { releaseOrphanedDependents: async () => 0, loadQueued: async () => [] },
    credentials: { inactive, activeIds: async () => [] },
    transaction,
    log: { error: () => undefined, warn: () => undefined },
    tenants: { companyLimits: async () => null },
    outages: new StoreOutages(createLogger({ level: "silent" })),
  } as unknown as GatewayContext;
  return { ctx, transaction, parked };
}

const never = { send: () => new Promise<never>(() => undefined) };

describe("the reconciler's pass (D-274)", () => {
  it("parks a paused credential's submissions in one immediate transaction", async () => {
    const { ctx, transaction, parked } = contextWith([{ id: "cred_1", reason: "401" }]);
    const dispatcher = new Dispatcher(ctx, { transport: never, sendBoundMs: 1_000 });
    await dispatcher.reconcile();
    expect(transaction).toHaveBeenCalledTimes(1);
    expect(transaction.mock.calls[0]?.[1]).toBe("immediate");
    expect(parked).toEqual(["cred_1"]);
    await dispatcher.close(0);
  });

  it("opens no transaction (on PostgreSQL, no database-wide lock) when no credential is paused", async () => {
    const { ctx, transaction, parked } = contextWith([]);
    const dispatcher = new Dispatcher(ctx, { transport: never, sendBoundMs: 1_000 });
    await dispatcher.reconcile();
    expect(transaction).not.toHaveBeenCalled();
    expect(parked).toEqual([]);
    await dispatcher.close(0);
  });
});
