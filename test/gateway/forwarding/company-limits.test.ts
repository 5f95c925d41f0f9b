import { afterEach, describe, expect, it, vi } from "vitest";
import type { GatewayContext } from "../../../src/gateway/context.js";
import { Dispatcher } from "../../../src/gateway/forwarding/dispatcher.js";
import type { ForwardingLimits } from "../../../src/gateway/forwarding/limits.js";
import { StoreOutages } from "../../../src/gateway/outage/index.js";
import type { Admissible } from "../../../src/gateway/storage/submissions/index.js";
import { createLogger } from "../../../src/log.js";

const W = 60_000;
const limits: ForwardingLimits = {
  perCredential: { limit: 10, windowMs: W },
  perCompany: { limit: 100, windowMs: W },
  egress: { limit: 100, windowMs: W },
  marginMs: 1,
};

/**
 * §8 a company's own limits (the levels it set lower) reach the limiter as they are when a credential's node is built:
 * the lookup is synchronous, the tenants store asynchronous (D-221), so the dispatcher reads them on admission of a
 * route whose nodes are not built yet — never only once, at the company's first admission.
 */
describe("§8 company limits in the forwarding dispatcher", () => {
  let dispatcher: Dispatcher | undefined;
  afterEach(async () => {
    await dispatcher?.close(0);
  });

  it("builds a credential added later with the company's limits of then", async () => {
    // Per minute, as the company's config has them; the window here is a minute, so the figure is the node's limit.
    let companyLimits: { perCredential: number } = { perCredential: 3 };
    const reads = vi.fn(async () => companyLimits);
    const ctx = {
      submissions: {},
      credentials: {},
      transaction: () => Promise.reject(new Error("no transaction in this test")),
      log: { error: () => undefined, warn: () => undefined },
      tenants: { companyLimits: reads },
      outages: new StoreOutages(createLogger({ level: "silent" })),
    } as unknown as GatewayContext;
    const sent: string[] = [];
    dispatcher = new Dispatcher(ctx, {
      limits,
      sendBoundMs: W,
      // Never answered: every send holds its slots, so what went out is what the credential's window allowed.
      transport: {
        send: ({ ready }) => {
          sent.push(ready.submissionId);
          return new Promise(() => undefined);
        },
      },
    });
    const row = (id: string, credentialId: string): Admissible => ({
      id,
      kind: "lead",
      companyId: "co_1",
      credentialId,
      nextAttemptAt: null,
      canonicalBody: {},
    });
    const on = (credentialId: string) => sent.filter((id) => id.startsWith(credentialId));

    for (let i = 0; i < 5; i++) dispatcher.notify(row(`c1-${i}`, "c1"));
    // Positive control: the first credential goes with the limits read then (3), the rest waits.
    await vi.waitFor(() => expect(dispatcher?.backlog).toBe(2));
    expect(on("c1")).toHaveLength(3);

    // The owner sets the per-credential level lower, then a second credential's submissions arrive.
    companyLimits = { perCredential: 2 };
    for (let i = 0; i < 5; i++) dispatcher.notify(row(`c2-${i}`, "c2"));
    await vi.waitFor(() => expect(dispatcher?.backlog).toBe(2 + 3));
    expect(on("c2")).toHaveLength(2);
    // The first credential's node keeps the limits it was built with.
    expect(on("c1")).toHaveLength(3);
  });
});
