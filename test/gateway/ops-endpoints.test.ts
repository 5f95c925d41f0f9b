import { createHash, randomBytes } from "node:crypto";
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createGateway, type Gateway } from "../../src/gateway/create-gateway.js";
import { HttpMetrics } from "../../src/http/metrics.js";
import { createLogger } from "../../src/log.js";
import { browserAvailability, launchChromium } from "../helpers/browser.js";
import { startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { testStorage } from "../helpers/test-store.js";

/**
 * §4.1 rule 9 leaves health and version paths open (docs/decisions.md); docs/configuration.md, "Operational
 * endpoints": `/metrics` and readiness details behind a token or on a listener of their own; `/docs` under a
 * content-security policy.
 */

const gateways: Gateway[] = [];
afterEach(async () => {
  for (const g of gateways.splice(0)) await g.close();
});
const open = async (ops?: { token?: string; separate?: boolean }) => {
  const gateway = await createGateway({
    // TEST_STORE=postgres: a database of its own (test-store.ts).
    ...(await testStorage(":memory:")),
    log: createLogger({ level: "silent" }),
    masterKey: randomBytes(32).toString("hex"),
    engine: { poolSize: 1 },
    metrics: new HttpMetrics("gateway"),
    ...(ops ? { ops } : {}),
  });
  gateways.push(gateway);
  return gateway;
};
const TOKEN = "ops-token-0123456789abcdef";
const get = async (app: Gateway["app"] | NonNullable<Gateway["opsApp"]>, path: string, token?: string) => {
  const res = await app.request(path, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  const text = await res.text();
  return { status: res.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
};

describe("operational endpoints: open by default (the positive control)", () => {
  it("serves /metrics and readiness details to anyone", async () => {
    const { app } = await open();
    expect((await get(app, "/metrics")).status).toBe(200);
    expect((await get(app, "/health/ready")).json()).toEqual({ status: "ok", checks: { db: "ok", outages: "ok" } });
  });
});

describe("operational endpoints behind a token (OPS_TOKEN)", () => {
  it("answers /metrics and readiness details only with the token; readiness's status and liveness to anyone", async () => {
    const { app } = await open({ token: TOKEN });
    const refused = await get(app, "/metrics");
    expect(refused.status).toBe(401);
    expect(refused.json()).toEqual({ error: "metrics need the operations token" });
    expect((await get(app, "/metrics", "wrong-token-0123456789")).status).toBe(401);
    const scraped = await get(app, "/metrics", TOKEN);
    expect(scraped.status).toBe(200);
    expect(scraped.text).toContain("http_requests_total");
    expect((await get(app, "/health/ready")).json()).toEqual({ status: "ok" });
    expect((await get(app, "/health/ready", TOKEN)).json()).toEqual({
      status: "ok",
      checks: { db: "ok", outages: "ok" },
    });
    expect((await get(app, "/health/live")).status).toBe(200);
    expect((await get(app, "/version")).status).toBe(200);
  });
});

describe("operational endpoints on a listener of their own (OPS_PORT)", () => {
  it("serves /metrics and readiness details there only; the public app answers readiness's status alone", async () => {
    const gateway = await open({ separate: true });
    expect((await get(gateway.app, "/metrics")).status).toBe(404);
    expect((await get(gateway.app, "/health/ready")).json()).toEqual({ status: "ok" });
    const ops = gateway.opsApp;
    expect(ops).toBeDefined();
    if (!ops) return;
    expect((await get(ops, "/metrics")).status).toBe(200);
    expect((await get(ops, "/health/ready")).json()).toEqual({ status: "ok", checks: { db: "ok", outages: "ok" } });
    // Nothing but the operational endpoints on it.
    expect((await get(ops, "/openapi.json")).status).toBe(404);
    expect((await get(ops, "/owner/v1/me")).status).toBe(404);
  });

  it("takes the token too when both are set", async () => {
    const ops = (await open({ separate: true, token: TOKEN })).opsApp;
    if (!ops) throw new Error("no operations app");
    expect((await get(ops, "/metrics")).status).toBe(401);
    expect((await get(ops, "/metrics", TOKEN)).status).toBe(200);
  });
});

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

describe("/docs under a content-security policy", () => {
  it("allows exactly its own inline script and style, the document's origin, and nothing else", async () => {
    const res = await (await open()).app.request("/docs");
    const html = await res.text();
    const policy = res.headers.get("content-security-policy") ?? "";
    const script = /<script>([\s\S]*)<\/script>/.exec(html)?.[1] ?? "";
    const style = /<style>([\s\S]*)<\/style>/.exec(html)?.[1] ?? "";
    expect(policy.split("; ")).toEqual([
      "default-src 'none'",
      `script-src ${sha256(script)}`,
      `style-src ${sha256(style)}`,
      "connect-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ]);
    // A style attribute would need 'unsafe-hashes'; markup built from the document would be an injection point.
    expect(html).not.toMatch(/\sstyle="/);
    expect(html).not.toContain("innerHTML");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });

  const availability = browserAvailability();
  describe.skipIf(!availability.available)("in a browser", () => {
    let t: TestGateway;
    let browser: Browser;
    beforeAll(async () => {
      t = await startTestGateway();
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
      await t?.close();
    });

    it("renders the API with no policy violation", async () => {
      const page = await browser.newPage();
      const violations: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") violations.push(message.text());
      });
      await page.goto(`${t.url}/docs`);
      await page.locator("details.op").first().waitFor();
      expect(await page.locator("details.op").count()).toBeGreaterThan(10);
      // The stylesheet applied (a blocked one would leave the browser's 32px heading).
      expect(await page.evaluate("getComputedStyle(document.querySelector('header h1')).fontSize")).toBe("20px");
      expect(violations).toEqual([]);
    });
  });
});
