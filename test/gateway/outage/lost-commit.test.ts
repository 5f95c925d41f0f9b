import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { GatewayContext } from "../../../src/gateway/context.js";
import { createVendorKey } from "../../../src/gateway/keys/vendor-keys.js";
import {
  createProfile,
  publishProfileVersion,
  saveProfileVersion,
} from "../../../src/gateway/profiles-admin/profiles.js";
import type { TransactionContext } from "../../../src/gateway/storage/transaction.js";
import { createSubscription } from "../../../src/gateway/webhooks/subscriptions/create-subscription.js";
import { lead, type Rig, startRig, until } from "../../helpers/forwarding.js";
import { json, postJson } from "../../helpers/gateway.js";
import { attemptRows, everyDelivery, submissionRow } from "../../helpers/store-reads.js";

/**
 * A COMMIT whose connection died after it went out: the database has the write, the caller heard an outage (D-334).
 * The retry after it must find its own write, not make it twice — and above all not send the submission or the
 * webhook again. Injected at the store's boundary: the real statement or transaction runs and commits, then the call
 * fails once with node-postgres's own "Connection terminated unexpectedly" (what a reset after COMMIT gives).
 */

const lostAnswer = () => new Error("Connection terminated unexpectedly");

let rig: Rig;
let receiver: Server;
const received: string[] = [];
beforeAll(async () => {
  rig = await startRig({ perKey: 50, perCompany: 100, egress: 200, windowMs: 1_000 });
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push(String((JSON.parse(Buffer.concat(chunks).toString()) as { id: string }).id));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
});
afterAll(async () => {
  await rig?.close();
  receiver?.close();
});

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

/** A company whose lead source is subscribed to its submissions' outcomes, at the test's receiver. */
async function leadSource(name: string, outboundExpression?: string) {
  const { ctx } = rig.gateway;
  const company = await rig.addCompany(name, 1);
  const key = await createVendorKey({
    ctx,
    companyId: company.gatewayCompanyId,
    input: {
      name: "source",
      partnerType: "lead_source",
      scopes: ["leads:write"],
      credentialId: company.credentials[0]?.id ?? "",
    },
  });
  const port = (receiver.address() as AddressInfo).port;
  const outboundProfileVersionId = outboundExpression
    ? await outboundProfile(company.gatewayCompanyId, outboundExpression)
    : null;
  await createSubscription({
    ctx,
    companyId: company.gatewayCompanyId,
    input: {
      vendorKeyId: key.id,
      url: `http://127.0.0.1:${port}/hook`,
      events: ["submission.forwarded"],
      outboundProfileVersionId,
    },
  });
  return { key: key.key, companyId: company.gatewayCompanyId };
}

/** A published outbound profile version of the company (the vendor's own webhook body). */
async function outboundProfile(companyId: string, expression: string): Promise<string> {
  const { ctx } = rig.gateway;
  const profile = await createProfile({ ctx, companyId, input: { name: "native-out", kind: "outbound" } });
  const envelope = { id: "evt_x", event: "submission.forwarded", data: { leadId: "lead_1" } };
  const saved = await saveProfileVersion({
    ctx,
    companyId,
    profileId: profile.id,
    input: {
      expression,
      samples: [{ name: "n", payload: envelope, expect: { body: { id: "evt_x", lead: "lead_1" } } }],
    },
  });
  await publishProfileVersion({ ctx, companyId, versionId: saved.version.id });
  return saved.version.id;
}

/** The company's one webhook delivery, once delivered; and how many times the vendor received its event. */
async function deliveredOnce(companyId: string) {
  const subscriptions = new Set(
    (await rig.gateway.ctx.webhooks.subscriptions.listOfCompany(companyId)).map((s) => s.id),
  );
  const mine = async () => (await everyDelivery(rig.gateway.ctx)).filter((d) => subscriptions.has(d.subscriptionId));
  await until(async () => (await mine()).some((d) => d.status === "delivered"), 20_000);
  const deliveries = await mine();
  expect(deliveries.map((d) => [d.status, d.attempts])).toEqual([["delivered", 1]]);
  expect(received.filter((id) => id === deliveries[0]?.eventId)).toHaveLength(1);
}

/** The context's transactions, `lose` deciding which one commits and then fails once as if its answer was lost. */
function loseOneCommit(
  ctx: GatewayContext,
  lose: (scope: { credentialId?: string } | undefined, touched: Set<string>) => boolean,
) {
  const real = ctx.transaction;
  let lost = false;
  ctx.transaction = (async (work, mode, scope) => {
    const touched = new Set<string>();
    const result = await real(
      (tx) =>
        work(
          new Proxy(tx, {
            get(target, store: keyof TransactionContext) {
              touched.add(String(store));
              return target[store];
            },
          }),
        ),
      mode,
      scope,
    );
    if (!lost && lose(scope, touched)) {
      lost = true;
      throw lostAnswer();
    }
    return result;
  }) as GatewayContext["transaction"];
  restore = () => {
    ctx.transaction = real;
  };
  return () => lost;
}

async function forwardedOnce(submissionId: string) {
  const row = await until(async () => {
    const r = await submissionRow(rig.gateway, submissionId);
    return r?.status === "forwarded" ? r : undefined;
  }, 20_000);
  const platformLead = (row.result as { leadId?: string } | null)?.leadId ?? "";
  // The platform received it once, and its attempt log holds one attempt.
  expect(rig.sandbox.admin.lead(platformLead).history).toHaveLength(1);
  expect(await attemptRows(rig.gateway, [submissionId])).toHaveLength(1);
  return row;
}

describe("D-334: a commit whose answer was lost is found by its retry, never done twice", () => {
  it("the outcome of a send: committed once, the submission not sent again, its webhook owed once", async () => {
    const { key, companyId } = await leadSource("Lost Outcome");
    const fired = loseOneCommit(rig.gateway.ctx, (scope) => scope?.credentialId !== undefined);
    const accepted = await postJson(`${rig.url}/api/inbound/leads`, lead(), { "x-api-key": key });
    const submissionId = String((await json(accepted)).submissionId);
    const row = await forwardedOnce(submissionId);
    expect(fired()).toBe(true);
    expect(row.attempts).toBe(1);
    await deliveredOnce(companyId);
  });

  it("a claim: the retry finds the submission held by its own lease and sends it, once", async () => {
    const { key } = await leadSource("Lost Claim");
    const store = rig.gateway.ctx.submissions;
    const realClaim = store.claim.bind(store);
    let lost = false;
    store.claim = async (id, now, leaseMs) => {
      const claimed = await realClaim(id, now, leaseMs);
      if (!lost) {
        lost = true;
        throw lostAnswer();
      }
      return claimed;
    };
    restore = () => {
      store.claim = realClaim;
    };
    const acceptedAt = Date.now();
    const accepted = await postJson(`${rig.url}/api/inbound/leads`, lead(), { "x-api-key": key });
    const row = await forwardedOnce(String((await json(accepted)).submissionId));
    expect(lost).toBe(true);
    // Sent by the attempt that claimed it, not after its lease ran out (2 s call timeout + 5 s) and a sweep.
    expect(Date.parse(row.forwardedAt ?? "") - acceptedAt).toBeLessThan(rig.forwarding.timeoutMs + 5_000);
  });

  it("a webhook outcome's group commit: the delivery is recorded once and not sent again", async () => {
    const { key, companyId } = await leadSource("Lost Delivery");
    // The dispatcher's group commit: the one transaction without a scope that records a delivery's attempt.
    const fired = loseOneCommit(rig.gateway.ctx, (scope, touched) => scope === undefined && touched.has("webhooks"));
    const accepted = await postJson(`${rig.url}/api/inbound/leads`, lead(), { "x-api-key": key });
    await forwardedOnce(String((await json(accepted)).submissionId));
    await deliveredOnce(companyId);
    expect(fired()).toBe(true);
  });
});

describe("D-330: a webhook body whose profile cannot be read while the database is away", () => {
  it("waits for the database: no failed attempt is recorded against the endpoint, the delivery goes once", async () => {
    const { key, companyId } = await leadSource("Away Body", `{ "id": id, "lead": data.leadId }`);
    const profiles = rig.gateway.ctx.profiles;
    const realExpression = profiles.expressionOf.bind(profiles);
    let refused = 0;
    profiles.expressionOf = async (...args: Parameters<typeof realExpression>) => {
      if (refused++ < 2)
        throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
      return realExpression(...args);
    };
    restore = () => {
      profiles.expressionOf = realExpression;
    };
    const accepted = await postJson(`${rig.url}/api/inbound/leads`, lead(), { "x-api-key": key });
    await forwardedOnce(String((await json(accepted)).submissionId));
    // One attempt, the one that went out: before, the outage was an attempt of its own, failed.
    await deliveredOnce(companyId);
    expect(refused).toBeGreaterThan(2);
  });
});
