import { randomBytes } from "node:crypto";
import type { RouteConfig } from "@hono/zod-openapi";
import { expect, vi } from "vitest";
import type { ZodType } from "zod";
import { createConnection } from "../../../src/gateway/connections/create-connection.js";
import { createUpstreamCredential } from "../../../src/gateway/credentials/upstream-credentials.js";
import { createOwner } from "../../../src/gateway/tenants/create-owner.js";
import { loadPlatformSecret } from "../../../src/gateway/webhooks/platform/platform-secrets.js";
import { createSubscription } from "../../../src/gateway/webhooks/subscriptions/create-subscription.js";
import {
  json,
  OWNER_PASSWORD,
  postJson,
  seedCompany,
  startTestGateway,
  type TestGateway,
} from "../../helpers/gateway.js";
import { seedSubmissions } from "../../helpers/seed-submissions.js";
import { FAST, type Receiver, startReceiver } from "../webhooks/support.js";

export const PREFIX = "/owner/v1";
/** The presets the gateway ships: hook connections are made from them. */
export const PRESETS = new URL("../../../presets", import.meta.url).pathname;
export const LEAD = `{ "fullName": name, "email": mail, "phone": tel, "address": addr }`;
const payload = { name: "Ada", mail: "ada@example.com", tel: "5550102000", addr: "1 Main St" };
export const SAMPLE = {
  name: "n",
  payload,
  expect: { body: { fullName: "Ada", email: "ada@example.com", phone: "5550102000", address: "1 Main St" } },
};

/** One operation of the owner API as the registry holds it. */
export interface Operation {
  method: string;
  /** The OpenAPI path, `/owner/v1/keys/{keyId}`. */
  path: string;
  route: RouteConfig & { "x-required-role"?: string };
}

/** Every owner operation in the app's OpenAPI registry (what `/openapi.json` is generated from). */
export function ownerOperations(t: TestGateway): Operation[] {
  return t.gateway.app.openAPIRegistry.definitions.flatMap((definition) =>
    definition.type === "route" && definition.route.path.startsWith(`${PREFIX}/`)
      ? [{ method: definition.route.method, path: definition.route.path, route: definition.route }]
      : [],
  );
}

export const opKey = (op: { method: string; path: string }) => `${op.method.toUpperCase()} ${op.path}`;

/** The status of an operation's success answer (its one 2xx). */
export function successStatus(op: Operation): number {
  const status = Object.keys(op.route.responses)
    .map(Number)
    .find((s) => s >= 200 && s < 300);
  if (status === undefined) throw new Error(`${opKey(op)} declares no success answer`);
  return status;
}

/** The zod schema an operation declares for a status; fails the test when it declares none. */
export function declaredSchema(op: Operation, status: number): ZodType {
  const response = (op.route.responses as Record<string, { content?: Record<string, { schema?: unknown }> }>)[
    String(status)
  ];
  const schema = response?.content?.["application/json"]?.schema as ZodType | undefined;
  expect(schema, `${opKey(op)} declares no JSON schema for ${status}`).toBeDefined();
  return schema as ZodType;
}

/** The media type of an operation's answer for a status (JSON, or the live log's event stream). */
export function mediaType(op: Operation, status: number): string | undefined {
  const response = (op.route.responses as Record<string, { content?: Record<string, unknown> }>)[String(status)];
  return Object.keys(response?.content ?? {})[0];
}

/** Checks an answer against what its operation declares for its status: exactly that shape, nothing more. */
export function expectDeclared(op: Operation, status: number, body: unknown, contentType?: string | null): void {
  const declaredType = mediaType(op, status);
  if (declaredType === "text/event-stream" || declaredType === "text/html") {
    expect(contentType, opKey(op)).toMatch(new RegExp(`^${declaredType}`));
    return;
  }
  const parsed = declaredSchema(op, status).safeParse(body);
  expect(parsed.success, `${opKey(op)} ${status}: ${parsed.error?.message}\n${JSON.stringify(body)}`).toBe(true);
}

/** A seeded gateway: Acme with every kind of resource, an admin, a viewer and spare tokens; Rival with its admin. */
export async function startContractGateway() {
  const t = await startTestGateway(
    { mode: "sandbox" },
    { webhooks: FAST, engine: { poolSize: 1 }, presetsDir: PRESETS },
  );
  const receiver: Receiver = await startReceiver();
  const { ctx } = t.gateway;
  const acme = await seedCompany(t.gateway, "Acme");
  const rival = await seedCompany(t.gateway, "Rival");
  const { profile, version } = await acme.publishProfile("lead", LEAD, [SAMPLE]);
  const key = await acme.issueKey({ leadProfileVersionId: version.id });
  const spareKey = await acme.issueKey();
  const spareCredential = await createUpstreamCredential({
    ctx,
    companyId: acme.company.id,
    input: { name: "spare", value: `svc_test_spare.${randomBytes(24).toString("base64url")}` },
  });
  // Paused, as forwarding leaves a credential the upstream refused: it can be resumed.
  await ctx.credentials.update(spareCredential.id, { status: "paused", pausedReason: "upstream answered 401" });
  const [failedSubmissionId = ""] = await seedSubmissions(t.gateway, [
    {
      companyId: acme.company.id,
      vendorKeyId: key.id,
      credentialId: acme.credential.id,
      at: Date.now() - 60_000,
      status: "failed",
      payload,
      attempts: 1,
    },
  ]);
  // An alert of its own: the paused credential, found by an evaluation now (the evaluator's next is 15 s away).
  await t.gateway.alerts?.evaluate();
  const [alert] = await ctx.alerts.live(acme.company.id);
  if (!alert) throw new Error("the paused credential opened no alert");
  await loadPlatformSecret({ ctx, companyId: acme.company.id, input: { version: 1, secret: "a".repeat(32) } });
  const subscribe = () =>
    createSubscription({
      ctx,
      companyId: acme.company.id,
      input: { vendorKeyId: key.id, url: receiver.url, events: ["submission.failed"] },
    });
  const subscription = await subscribe();
  const spareSubscription = await subscribe();
  const connect = (name: string) =>
    createConnection({
      ctx,
      companyId: acme.company.id,
      input: { name, preset: "angi", secrets: { apiKey: "contract-angi-key" }, credentialId: acme.credential.id },
    });
  const connection = await connect("Angi");
  const spareConnection = await connect("Angi spare");

  const admin = await signIn(t, acme.email);
  const viewerEmail = `viewer-${randomBytes(4).toString("hex")}@example.test`;
  await createOwner({
    ctx,
    input: { companyId: acme.company.id, email: viewerEmail, name: "V", role: "viewer", password: OWNER_PASSWORD },
  });
  const viewer = await signIn(t, viewerEmail);
  const other = await signIn(t, rival.email);
  const spareToken = await signIn(t, acme.email);
  const signOutToken = await signIn(t, acme.email);

  // A delivery that has been delivered, so it may be redelivered.
  const test = await call(t, admin.token, "POST", `/webhooks/subscriptions/${subscription.id}/test`);
  const deliveryId = String(test.body.deliveryId);
  await vi.waitFor(
    async () => {
      const { status } = (await call(t, admin.token, "GET", `/webhooks/deliveries/${deliveryId}`)).body;
      if (status !== "delivered") throw new Error(`the test delivery is ${String(status)}`);
    },
    { timeout: 10_000, interval: 50 },
  );

  return {
    t,
    acme,
    rival,
    tokens: { admin: admin.token, viewer: viewer.token, other: other.token },
    spareTokenId: spareToken.tokenId,
    signOutToken: signOutToken.token,
    ids: {
      credentialId: spareCredential.id,
      keyId: key.id,
      spareKeyId: spareKey.id,
      profileId: profile.id,
      versionId: version.id,
      failedSubmissionId,
      subscriptionId: subscription.id,
      spareSubscriptionId: spareSubscription.id,
      deliveryId,
      connectionId: connection.id,
      spareConnectionId: spareConnection.id,
      alertId: alert.id,
    },
    receiverUrl: receiver.url,
    async close() {
      await t.close();
      await receiver.close();
    },
  };
}

export type ContractGateway = Awaited<ReturnType<typeof startContractGateway>>;

/** Signs in and makes a bearer token, as automation does: the token and its id. */
async function signIn(t: TestGateway, email: string): Promise<{ token: string; tokenId: string }> {
  const session = await postJson(`${t.url}${PREFIX}/sessions`, { email, password: OWNER_PASSWORD });
  const cookie = String(session.headers.get("set-cookie")).split(";")[0] ?? "";
  const csrf = String((await json(session)).csrfToken);
  const res = await postJson(`${t.url}${PREFIX}/tokens`, { name: "contract" }, { cookie, "x-csrf-token": csrf });
  const made = await json(res);
  return { token: String(made.token), tokenId: String(made.id) };
}

/** One owner API call with a bearer token (none: unauthenticated); the status, the parsed body and the headers. */
export async function call(
  t: TestGateway,
  token: string | undefined,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`${t.url}${PREFIX}${path}`, {
    method,
    headers: {
      "content-type": "application/json",
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.headers.get("content-type")?.startsWith("text/event-stream")) {
    // The live log's stream: it is open; the caller checks its status and type, not its events.
    await res.body?.cancel();
    return { status: res.status, body: {}, headers: res.headers };
  }
  const text = await res.text();
  // A page (a key's posting docs): the caller checks its status and type.
  if (res.headers.get("content-type")?.startsWith("text/html"))
    return { status: res.status, body: {}, headers: res.headers };
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown>, headers: res.headers };
}
