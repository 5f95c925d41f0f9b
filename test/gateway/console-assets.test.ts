import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleConsole } from "../../src/gateway/console/bundle.js";
import { startTestGateway, type TestGateway } from "../helpers/gateway.js";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

describe("console bundle (esbuild, in memory)", () => {
  it("bundles the console with CodeMirror into one module quickly", async () => {
    const bundle = await bundleConsole();
    expect(bundle.js.body.length).toBeGreaterThan(100_000);
    expect(bundle.js.body).toContain("cm-editor");
    expect(bundle.css.body).toContain(".editor-grid");
    expect(bundle.buildMs).toBeLessThan(10_000);
  });

  it("ships no zod and no server schema: the client imports them for types only (D-260)", async () => {
    const { body } = (await bundleConsole()).js;
    // Positive controls: the words searched for are in the modules the console's types come from.
    const keys = await readFile(new URL("../../src/gateway/owner/routes/keys.schemas.ts", import.meta.url), "utf8");
    expect(keys).toContain("VendorKeyWithSecret");
    const zod = await readFile(new URL("../../node_modules/zod/v4/core/errors.js", import.meta.url), "utf8");
    expect(zod).toContain("$ZodError");
    expect(body).not.toContain("VendorKeyWithSecret");
    expect(body).not.toContain("$ZodError");
    // The client itself is there.
    expect(body).toContain("/owner/v1");
  });
});

describe("console pages served by the gateway", () => {
  it("serves one shell for every console path, with a CSP that forbids inline script and foreign origins", async () => {
    for (const path of ["/console", "/console/profiles/prf_x", "/console/submissions?status=failed"]) {
      const res = await fetch(`${t.url}${path}`);
      expect(res.status).toBe(200);
      const csp = String(res.headers.get("content-security-policy"));
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      const html = await res.text();
      expect(html).toContain('<script type="module" src="/console/assets/console.js">');
      expect(html).not.toMatch(/<script>|https?:\/\//);
    }
  });

  it("serves the assets with an etag and answers 304 when unchanged", async () => {
    const js = await fetch(`${t.url}/console/assets/console.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toMatch(/javascript/);
    const etag = String(js.headers.get("etag"));
    await js.arrayBuffer();
    const again = await fetch(`${t.url}/console/assets/console.js`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    const css = await fetch(`${t.url}/console/assets/console.css`);
    expect(css.headers.get("content-type")).toMatch(/text\/css/);
    expect((await fetch(`${t.url}/console/assets/other.js`)).status).toBe(404);
  });
});
