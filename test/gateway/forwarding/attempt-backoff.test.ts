import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import type { GatewayContext } from "../../../src/gateway/context.js";
import { SubmissionAttempt } from "../../../src/gateway/forwarding/attempt.js";
import { json, postJson, seedCompany, startTestGateway, type TestGateway } from "../../helpers/gateway.js";

/**
 * How long the outcome's transaction waits before it runs, as behind another outcome of its company (D-273). The
 * wait is the clock moved on (fake Date): the rule is about which instant the backoff counts from, not about sleeping.
 */
const COMMIT_WAIT_MS = 600;

/**
 * §7 a retryable failure is sent again after a backoff. The backoff counts from when the failure came, not from when
 * its outcome committed: on PostgreSQL an outcome may wait for its company's lock (D-273), and that wait must not be
 * added to the backoff (the fault matrices measure failure → next send).
 */
describe("§7 the backoff of a retryable failure counts from its answer", () => {
  let t: TestGateway;
  let upstream: Server;
  afterAll(async () => {
    await t?.close();
    upstream?.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("sets the next send at the answer + the backoff, though the outcome committed later", async () => {
    upstream = createServer((_req, res) => res.writeHead(503, { "content-type": "application/json" }).end("{}"));
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    t = await startTestGateway();
    const acme = await seedCompany(t.gateway);
    const key = await acme.issueKey();
    const accepted = await postJson(
      `${t.url}/api/inbound/leads`,
      {
        fullName: "Backoff Person",
        email: "backoff@example.com",
        phone: "+1 512-555-0100",
        address: "1 Retry Road, Austin",
      },
      { "x-api-key": key.key },
    );
    expect(accepted.status).toBe(202);
    const submissionId = String((await json(accepted)).submissionId);

    const { ctx } = t.gateway;
    let committedAt = 0;
    // Only Date is faked: timers, sockets and the database run as they do.
    vi.useFakeTimers({ toFake: ["Date"] });
    const slow: GatewayContext = Object.create(ctx, {
      transaction: {
        value: (async (work, mode, companyId) => {
          vi.setSystemTime(Date.now() + COMMIT_WAIT_MS);
          const result = await ctx.transaction(work, mode, companyId);
          committedAt = Date.now();
          return result;
        }) satisfies GatewayContext["transaction"],
      },
    });
    const retry = { baseMs: 200, capMs: 200, maxAttempts: 5, horizonMs: 60_000 };
    const attempt = new SubmissionAttempt(slow, { upstreamUrl, retry, random: () => 1 });
    const { verdict, answeredAt } = await attempt.run(submissionId);

    // Positive control: the outcome did commit well after the answer.
    expect(committedAt - answeredAt).toBeGreaterThanOrEqual(COMMIT_WAIT_MS);
    expect(verdict).toEqual({ kind: "retry", at: answeredAt + retry.baseMs });
    const row = await ctx.submissions.get(submissionId);
    expect(row).toMatchObject({ status: "queued", attempts: 1, nextAttemptAt: answeredAt + retry.baseMs });
  });
});
