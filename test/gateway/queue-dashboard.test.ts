import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway, type Gateway } from "../../src/gateway/create-gateway.js";
import { createCompany } from "../../src/gateway/tenants/create-company.js";
import { createOwner } from "../../src/gateway/tenants/create-owner.js";
import { listen, type RunningServer } from "../../src/http/server.js";
import { createLogger } from "../../src/log.js";
import { OWNER_PASSWORD, postJson, TEST_PASSWORD_COST } from "../helpers/gateway.js";
import { redisForTests, SHARED_REDIS_URL } from "../helpers/redis.js";
import { testStorage } from "../helpers/test-store.js";

const available = await redisForTests();

/** In Redis mode the BullMQ dashboard is mounted for admins of the gateway's operator company only. */
describe.skipIf(!available)("queue dashboard (bull-board) in Redis mode", () => {
  let gateway: Gateway;
  let server: RunningServer;
  const cookies: Record<string, string> = {};

  async function owner(companyId: string, role: "admin" | "viewer", name: string) {
    const email = `${name}-${randomBytes(3).toString("hex")}@ops.test`;
    await createOwner({ ctx: gateway.ctx, input: { companyId, email, name, role, password: OWNER_PASSWORD } });
    const res = await postJson(`${server.url}/owner/v1/sessions`, { email, password: OWNER_PASSWORD });
    cookies[name] = String(res.headers.get("set-cookie")).split(";")[0] ?? "";
  }

  beforeAll(async () => {
    const prefix = `test-dash-${randomBytes(4).toString("hex")}`;
    gateway = await createGateway({
      // TEST_STORE=postgres: a database of its own (test-store.ts).
      ...(await testStorage(":memory:")),
      log: createLogger({ level: "silent" }),
      masterKey: randomBytes(32).toString("hex"),
      forwarding: {
        upstreamUrl: "http://127.0.0.1:1",
        redis: { url: SHARED_REDIS_URL, prefix, api: true, worker: false },
      },
      settings: { operatorCompanyId: "operator", passwordCost: TEST_PASSWORD_COST },
    });
    server = await listen(gateway.app, { host: "127.0.0.1", port: 0 });
    const operator = await createCompany({ ctx: gateway.ctx, input: { id: "operator", name: "Operator" } });
    const tenant = await createCompany({ ctx: gateway.ctx, input: { name: "Tenant" } });
    await owner(operator.id, "admin", "operatorAdmin");
    await owner(operator.id, "viewer", "operatorViewer");
    await owner(tenant.id, "admin", "tenantAdmin");
  });
  afterAll(async () => {
    await server?.close();
    await gateway?.close();
  });

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${server.url}${path}`, { headers });

  it("shows the operator's admin the dashboard and the forwarding queue", async () => {
    const page = await get("/console/queues", { cookie: cookies.operatorAdmin ?? "" });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(/bull/i);
    // Its assets come from the gateway (node_modules), never from a CDN.
    const base = /<base href="([^"]+)"/.exec(html)?.[1] ?? "";
    const script = new URL(/src="([^"]+\.js)"/.exec(html)?.[1] ?? "", new URL(base, server.url));
    expect(script.pathname.startsWith("/console/queues/static/")).toBe(true);
    expect((await get(script.pathname, { cookie: cookies.operatorAdmin ?? "" })).status).toBe(200);
    const api = await get("/console/queues/api/queues", { cookie: cookies.operatorAdmin ?? "" });
    expect(api.status).toBe(200);
    expect(JSON.stringify(await api.json())).toContain("forward-send");
  });

  it("answers 404 to everyone else: no session, a viewer, another company's admin", async () => {
    for (const cookie of ["", cookies.operatorViewer ?? "", cookies.tenantAdmin ?? ""]) {
      expect((await get("/console/queues", { cookie })).status).toBe(404);
      expect((await get("/console/queues/api/queues", { cookie })).status).toBe(404);
    }
  });

  it("accepts a dashboard mutation from its own origin only", async () => {
    const cookie = cookies.operatorAdmin ?? "";
    const put = (headers: Record<string, string>) =>
      fetch(`${server.url}/console/queues/api/queues/forward-send/pause`, {
        method: "PUT",
        headers: { cookie, ...headers },
      });
    expect((await put({ origin: "https://evil.example" })).status).toBe(404);
    expect((await put({})).status).toBe(404);
    expect((await put({ origin: server.url })).status).toBeLessThan(300);
    const resume = await fetch(`${server.url}/console/queues/api/queues/forward-send/resume`, {
      method: "PUT",
      headers: { cookie, origin: server.url },
    });
    expect(resume.status).toBeLessThan(300);
  });

  it("tells the console whether to link the dashboard", async () => {
    const me = async (cookie: string) =>
      (await (await get("/owner/v1/sessions/current", { cookie })).json()) as { operator: boolean };
    expect((await me(cookies.operatorAdmin ?? "")).operator).toBe(true);
    expect((await me(cookies.tenantAdmin ?? "")).operator).toBe(false);
  });
});
