import { randomBytes } from "node:crypto";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { getAlertSettings } from "../../src/gateway/alerts/settings-admin.js";
import { createUpstreamCredential } from "../../src/gateway/credentials/upstream-credentials.js";
import { createVendorKey } from "../../src/gateway/keys/vendor-keys.js";
import { createOwner } from "../../src/gateway/tenants/create-owner.js";
import { faultSpecSchema } from "../../src/sandbox/faults/fault-spec.js";
import { browserAvailability, launchChromium, screenshot } from "../helpers/browser.js";
import { lead, type Rig, type RigCompany, startRig, until } from "../helpers/forwarding.js";
import { seedSubmissions } from "../helpers/seed-submissions.js";
import { countWithStatus } from "../helpers/store-reads.js";

const availability = browserAvailability();
const PRESETS = new URL("../../presets", import.meta.url).pathname;
const PASSWORD = "console test password";
const NATIVE = {
  name: "Ada Lovelace",
  mail: "ada@example.com",
  tel: "+1 512 555 0100",
  addr: "12 Analytical Way, Austin, TX 78701",
};
const FIXED = `{
  "fullName": name,
  "email": mail,
  "phone": tel,
  "address": addr
}`;

let rig: Rig;
let company: RigCompany;
let browser: Browser;
let page: Page;
let adminEmail: string;
let viewerEmail: string;
let rivalSubmission: string;

/** Signs in with the keyboard alone: the email field has focus, Tab to the password, Enter submits. */
async function signIn(p: Page, email: string): Promise<void> {
  await p.goto(`${rig.url}/console`);
  await p.getByLabel("Email").waitFor();
  await p.keyboard.type(email);
  await p.keyboard.press("Tab");
  await p.keyboard.type(PASSWORD);
  await p.keyboard.press("Enter");
  await p.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
}

/** Form controls and buttons without an accessible name (a label, aria-label, or a button's text). */
const UNLABELLED = `[...document.querySelectorAll("input, select, textarea, button")]
  .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute("aria-label") && !(el.tagName === "BUTTON" && el.textContent.trim()))
  .map((el) => el.outerHTML.slice(0, 120))`;

/** Every page the suite visits is screenshotted and checked for unlabelled controls. */
async function capture(p: Page, name: string, fullPage = true): Promise<void> {
  expect(await p.evaluate(UNLABELLED), `unlabelled controls on ${name}`).toEqual([]);
  await p.screenshot({ path: screenshot(name), fullPage });
}

async function typeExpression(p: Page, text: string): Promise<void> {
  await p.locator(".cm-content").click();
  await p.keyboard.press("ControlOrMeta+a");
  await p.keyboard.press("Delete");
  await p.keyboard.insertText(text);
}

async function intake(vendorKey: string, body: unknown): Promise<string> {
  const res = await fetch(`${rig.url}/api/inbound/leads`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": vendorKey },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(202);
  return String(((await res.json()) as { submissionId: string }).submissionId);
}

describe.skipIf(!availability.available)("owner console in a real browser", () => {
  beforeAll(async () => {
    rig = await startRig({
      perKey: 60,
      perCompany: 300,
      egress: 600,
      windowMs: 60_000,
      retry: { maxAttempts: 2 },
      presetsDir: PRESETS,
    });
    company = await rig.addCompany("Sunrise Console");
    const { ctx } = rig.gateway;
    adminEmail = `admin-${randomBytes(3).toString("hex")}@console.test`;
    viewerEmail = `viewer-${randomBytes(3).toString("hex")}@console.test`;
    const companyId = company.gatewayCompanyId;
    await createOwner({
      ctx,
      input: { companyId, email: adminEmail, name: "Admin", role: "admin", password: PASSWORD },
    });
    await createOwner({
      ctx,
      input: { companyId, email: viewerEmail, name: "Viewer", role: "viewer", password: PASSWORD },
    });
    // Another company with a submission the console must never show.
    const rival = await rig.addCompany("Rival");
    [rivalSubmission = ""] = await seedSubmissions(rig.gateway, [
      {
        companyId: rival.gatewayCompanyId,
        vendorKeyId: rival.vendorKeys[0]?.split(".")[0] ?? "",
        credentialId: rival.credentials[0]?.id ?? "",
        at: Date.now(),
      },
    ]);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(10_000);
  });
  afterAll(async () => {
    await browser?.close();
    await rig?.close();
  });

  it("signs in with an HttpOnly session cookie", async () => {
    await page.goto(`${rig.url}/console/keys`);
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await capture(page, "sign-in", false);
    await signIn(page, adminEmail);
    const cookie = (await page.context().cookies()).find((c) => c.name === "pg_session");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict" });
    expect(await page.evaluate("document.cookie")).not.toContain("pg_session");
  });

  it("creates a draft profile, shows the live output and a pinned validation error, then publishes the fix", async () => {
    await page.getByRole("link", { name: "Profiles" }).click();
    await page.getByRole("heading", { name: "Profiles" }).waitFor();
    await capture(page, "profiles");
    await page.getByLabel("Name").fill("LeadMarket");
    await page.getByRole("button", { name: "Create draft profile" }).click();
    await page.getByRole("heading", { name: /LeadMarket/, level: 1 }).waitFor();

    await page.getByLabel("Payload (JSON)").fill(JSON.stringify(NATIVE, null, 2));
    // The starter expression reads `email`, which this vendor calls `mail`: §2.7 wants an email or a phone... and a name.
    await typeExpression(page, FIXED.replace('"fullName": name', '"fullName": fullname'));
    await expect.poll(() => page.locator(".pinned-error").textContent()).toContain("fullName");
    await capture(page, "profile-editor-invalid");

    await typeExpression(page, '{ "fullName": name, ');
    await page.locator(".cm-lintRange-error").first().waitFor();
    await typeExpression(page, "");
    await expect.poll(() => page.locator(".output-status").textContent()).toContain("refused");

    await typeExpression(page, FIXED);
    await page.getByText("valid", { exact: true }).waitFor();
    await expect.poll(() => page.locator(".output-pane").textContent()).toContain("Ada Lovelace");
    await expect.poll(() => page.locator(".elapsed").textContent()).toMatch(/evaluated in [\d.]+ ms/);

    await page.getByRole("button", { name: "Add current payload as sample" }).click();
    await expect.poll(() => page.locator("#samples-h + div").textContent()).toContain("1 of 1 pass");
    await page.getByRole("button", { name: "Publish" }).click();
    await page.getByText(/Published v1/).waitFor();
    await capture(page, "profile-editor");
  });

  it("shows a refused change with the API's message and its request id, for the owner to quote (D-260)", async () => {
    await page.goto(`${rig.url}/console/profiles`);
    await page.getByRole("heading", { name: "Profiles" }).waitFor();
    await page.getByLabel("Name").fill("LeadMarket");
    const answer = page.waitForResponse(
      (r) => r.url().endsWith("/owner/v1/profiles") && r.request().method() === "POST",
    );
    await page.getByRole("button", { name: "Create draft profile" }).click();
    const refused = await answer;
    const body = (await refused.json()) as { code: string; requestId: string };
    expect(refused.status()).toBe(409);
    expect(body.code).toBe("conflict");
    expect(body.requestId).toBe(refused.headers()["x-request-id"]);
    await expect
      .poll(() => page.getByRole("alert").textContent())
      .toBe(`a profile named "LeadMarket" already exists (request ${body.requestId})`);
  });

  let vendorKey = "";
  it("issues a key bound to the profile and shows its secret once", async () => {
    await page.getByRole("link", { name: "Keys" }).click();
    await page.getByLabel("Vendor name").fill("LeadMarket vendor");
    await page.getByLabel("Lead profile").selectOption({ label: "LeadMarket v1" });
    await page.getByRole("button", { name: "Issue key" }).click();
    const secret = page.getByLabel("Key for LeadMarket vendor");
    await secret.waitFor();
    vendorKey = await secret.inputValue();
    // The secret is base64url: letters, digits, "-" and "_".
    expect(vendorKey).toMatch(/^svc_test_\w+\.[\w-]+$/);
    await capture(page, "keys");
    await page.reload();
    await page.getByRole("heading", { name: "Keys" }).waitFor();
    expect(await page.content()).not.toContain(vendorKey.split(".")[1]);
  });

  it("shows a native payload posted with the key as forwarded in the log", async () => {
    const id = await intake(vendorKey, NATIVE);
    await page.getByRole("link", { name: "Submissions" }).click();
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.locator(`tr:has(a:text("${id}"))`).getAttribute("data-status");
        },
        { timeout: 15_000 },
      )
      .toBe("forwarded");
    await capture(page, "submissions");
    await page.getByRole("link", { name: id }).click();
    await page.getByRole("heading", { name: "Attempts" }).waitFor();
    expect(await page.locator("main").textContent()).toContain("HTTP 201");
    await capture(page, "submission");
  });

  it("sees a failure forced by the sandbox in the dead letter, redrives it and sees it forwarded", async () => {
    const fault = rig.sandbox.admin.faults.add(
      faultSpecSchema.parse({ route: "POST /api/inbound/leads", errorRate: 1, errorStatus: 503 }),
    );
    // A failed case must not leave every later send refused (the cases after it would fail for this one's reason).
    onTestFinished(() => {
      rig.sandbox.admin.faults.remove(fault.id);
    });
    const id = await intake(vendorKey, { ...NATIVE, addr: "14 Analytical Way, Austin, TX 78701" });
    await page.getByRole("link", { name: "Dead letter" }).click();
    const heading = page.getByRole("heading", { name: "Dead letter", level: 1 });
    await expect
      .poll(
        async () => {
          await page.reload();
          // The reload resolves at the load event, before the page has fetched and drawn its rows: counted then, the
          // row is missing whenever the owner API answers slower than the count comes (PostgreSQL, a loaded machine).
          // The heading is drawn with the rows, in one mount.
          await heading.waitFor();
          return page.locator(`tr:has(a:text("${id}"))`).count();
        },
        { timeout: 20_000 },
      )
      .toBe(1);
    await capture(page, "dead-letter");
    rig.sandbox.admin.faults.remove(fault.id);
    await page.getByLabel(`Select ${id}`).check();
    await page.getByRole("button", { name: /Redrive selected/ }).click();
    await page.getByText("Forwarded 1 of 1.").waitFor({ timeout: 15_000 });
  });

  it("draws the overview and the webhooks page", async () => {
    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.getByLabel("Vendor key").selectOption({ label: "LeadMarket vendor" });
    await page.getByLabel("URL").fill("http://127.0.0.1:9999/hooks");
    await page.getByLabel("submission.forwarded").check();
    await page.getByRole("button", { name: "Subscribe" }).click();
    await page.getByLabel("Signing secret").waitFor();
    await page.getByRole("button", { name: "Send a test event" }).click();
    await page.getByRole("cell", { name: "webhook.test" }).waitFor();
    await page.getByRole("button", { name: "Rotate secret" }).click();
    expect(await page.getByLabel("Pending secret v2").inputValue()).toMatch(/^whsec_/);
    await capture(page, "webhooks");
    await page.getByRole("button", { name: "Activate v2" }).click();
    await page.getByText(/secret v2/).waitFor();
    await page.getByRole("link", { name: "Overview" }).click();
    await page.locator("figure.chart svg").first().waitFor();
    expect(await page.locator(".stat.forwarded .stat-value").textContent()).toBe("2");
    await capture(page, "overview");
    await page.setViewportSize({ width: 390, height: 844 });
    await capture(page, "overview-phone");
    await page.goto(`${rig.url}/console/submissions`);
    await page.getByRole("heading", { name: "Submissions" }).waitFor();
    await capture(page, "submissions-phone");
    await page.goto(`${rig.url}/console/profiles`);
    await page.getByRole("link", { name: "LeadMarket" }).click();
    await page.locator(".output-pane .badge").waitFor();
    await capture(page, "profile-editor-phone");
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("never shows another company's submission", async () => {
    const status = await page.evaluate(
      async (id) => (await fetch(`/owner/v1/submissions/${id}`)).status,
      rivalSubmission,
    );
    expect(status).toBe(404);
    await page.goto(`${rig.url}/console/submissions/${rivalSubmission}`);
    await page.getByRole("alert").waitFor();
    expect(await page.locator("main").textContent()).not.toContain("Seed Person");
  });

  it("§8 shows a forward latency p95 under 1 s after a burst of thirty on an idle credential", async () => {
    // A company of its own, so the overview shows the burst alone (the redriven one above spent seconds in the dead letter).
    const quiet = await rig.addCompany("Quiet Burst");
    const email = `burst-${randomBytes(3).toString("hex")}@console.test`;
    await createOwner({
      ctx: rig.gateway.ctx,
      input: { companyId: quiet.gatewayCompanyId, email, name: "Burst admin", role: "admin", password: PASSWORD },
    });
    await Promise.all(Array.from({ length: 30 }, () => intake(quiet.vendorKeys[0] ?? "", lead())));
    await until(async () => (await countWithStatus(rig.gateway, quiet.gatewayCompanyId, "forwarded")) === 30, 30_000);
    const owner = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(owner, email);
    await owner.locator("figure.chart svg").first().waitFor();
    expect(await owner.locator(".stat.forwarded .stat-value").textContent()).toBe("30");
    // Paced 0.9 s apart at 60 a minute, the same burst showed a p95 of about 26 s.
    const p95 = await owner.locator(".stat.latency .stat-value").textContent();
    expect(p95).toMatch(/^\d+ ms$/);
    expect(Number.parseInt(p95 ?? "", 10)).toBeLessThan(1_000);
    await capture(owner, "overview-after-burst");
    await owner.close();
  });

  let backup = { credentialId: "", vendorKey: "" };
  it("adds an upstream credential, shows a paused one with the platform's reason, and rotates its value", async () => {
    await page.goto(`${rig.url}/console`);
    await page.getByRole("link", { name: "Credentials" }).click();
    await page.getByRole("heading", { name: "Upstream credentials" }).waitFor();
    const upstream = () =>
      rig.sandbox.admin.createKey({
        companyId: company.sandboxCompanyId,
        kind: "general",
        personId: company.sandboxPersonId,
      }).key;
    const first = upstream();
    await page.getByLabel("Credential name").fill("Backup general");
    await page.getByLabel("Credential value").fill(first);
    await page.getByRole("button", { name: "Add credential" }).click();
    await page.getByText(/^Added Backup general/).waitFor();
    expect(await page.content()).not.toContain(first.split(".")[1]);
    const { ctx } = rig.gateway;
    const credentialId = (await ctx.credentials.findByName(company.gatewayCompanyId, "Backup general"))?.id ?? "";
    const vendor = await createVendorKey({
      ctx,
      companyId: company.gatewayCompanyId,
      input: { name: "Backup vendor", partnerType: "lead_source", scopes: ["leads:write"], credentialId },
    });
    backup = { credentialId, vendorKey: vendor.key };

    // The platform refuses the key: forwarding pauses the credential, and the page says why.
    rig.sandbox.admin.revokeKey(first.split(".")[0] ?? "");
    const waiting = await intake(backup.vendorKey, lead({ fullName: "Paused Person" }));
    await expect.poll(async () => (await ctx.submissions.get(waiting))?.status).toBe("waiting");
    await page.reload();
    const row = page.locator("tr", { hasText: "Backup general" });
    await expect.poll(() => row.getAttribute("data-status")).toBe("paused");
    expect(await row.locator(".paused-reason").textContent()).toMatch(/^upstream 401/);
    await capture(page, "credentials-paused");

    await page.getByRole("button", { name: "Rotate Backup general" }).click();
    await page.getByLabel("New value for Backup general").fill(upstream());
    await page.getByRole("button", { name: "Replace value" }).click();
    await page.getByText("Rotated Backup general: version 2, active.").waitFor();
    await expect.poll(async () => (await ctx.submissions.get(waiting))?.status, { timeout: 15_000 }).toBe("forwarded");
    await capture(page, "credentials");
  });

  it("keeps a filtered live log current: a new match enters, a change that leaves the filter leaves", async () => {
    await page.getByRole("link", { name: "Submissions" }).click();
    await page.getByLabel("Status").selectOption("waiting");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/status=waiting/);
    await page.locator('.live-status[data-live="live"]').waitFor();
    await page.evaluate("window.__sameDocument = true");
    // The credential paused (as forwarding's 401 leaves it): what its key accepts now waits.
    const { ctx } = rig.gateway;
    const version = (await ctx.credentials.get(backup.credentialId))?.version ?? 0;
    ctx.credentials.pause(backup.credentialId, "upstream 401: key disabled", version);
    const forwarded = await intake(vendorKey, { ...NATIVE, name: "Forwarded Person" });
    const waiting = await intake(backup.vendorKey, lead({ fullName: "Waiting Person" }));
    const waitingRow = page.locator(`tr:has(a:text("${waiting}"))`);
    await waitingRow.waitFor({ timeout: 10_000 });
    expect(await waitingRow.getAttribute("data-status")).toBe("waiting");
    await expect.poll(async () => (await ctx.submissions.get(forwarded))?.status).toBe("forwarded");
    expect(await page.locator(`tr:has(a:text("${forwarded}"))`).count()).toBe(0);
    await capture(page, "submissions-live");

    // Resumed from the credentials page of another tab: the submission is forwarded and leaves the waiting log.
    const otherContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const other = await otherContext.newPage();
    await signIn(other, adminEmail);
    await other.getByRole("link", { name: "Credentials" }).click();
    await other.getByRole("button", { name: "Resume Backup general" }).click();
    await other.getByRole("dialog").getByRole("button", { name: "Resume" }).click();
    await other.getByText(/^Resumed Backup general/).waitFor();
    await otherContext.close();
    await expect.poll(async () => (await ctx.submissions.get(waiting))?.status, { timeout: 15_000 }).toBe("forwarded");
    await waitingRow.waitFor({ state: "detached", timeout: 10_000 });
    expect(await page.evaluate("window.__sameDocument")).toBe(true);
  });

  it("rotates a vendor key with an overlap and changes its bindings", async () => {
    await page.getByRole("link", { name: "Keys" }).click();
    await page.getByRole("button", { name: "Rotate LeadMarket vendor" }).click();
    await page.getByLabel("Overlap for LeadMarket vendor").selectOption("3600");
    await capture(page, "key-rotate");
    await page.getByRole("button", { name: "Rotate key" }).click();
    const secret = page.getByLabel("Key for LeadMarket vendor");
    await secret.waitFor();
    const rotated = await secret.inputValue();
    expect(rotated).not.toBe(vendorKey);
    expect(rotated.split(".")[0]).toBe(vendorKey.split(".")[0]);
    expect(await page.locator(".overlap-note").textContent()).toMatch(/previous key keeps working until/);
    await capture(page, "keys-rotated");
    // Both work during the overlap.
    await intake(vendorKey, NATIVE);
    await intake(rotated, NATIVE);
    vendorKey = rotated;

    await page.getByRole("button", { name: "Edit bindings of LeadMarket vendor" }).click();
    await page.getByLabel("Lead profile of LeadMarket vendor").selectOption({ label: "none (canonical body)" });
    await page.getByLabel("Response mode of LeadMarket vendor").selectOption("sync");
    await page.getByLabel("Credential of LeadMarket vendor").selectOption({ label: "Backup general" });
    await capture(page, "key-bindings");
    await page.getByRole("button", { name: "Save bindings" }).click();
    await page.getByText("Saved the bindings of LeadMarket vendor.").waitFor();
    const keys = (await page.evaluate(async () => (await fetch("/owner/v1/keys")).json())) as {
      keys: { name: string; leadProfileVersionId: string | null; responseMode: string; credentialId: string }[];
    };
    expect(keys.keys.find((k) => k.name === "LeadMarket vendor")).toMatchObject({
      leadProfileVersionId: null,
      responseMode: "sync",
      credentialId: backup.credentialId,
    });
    expect(await page.locator("tr", { hasText: "LeadMarket vendor" }).textContent()).toContain(
      "previous key works until",
    );
  });

  it("connects a vendor from the catalogue, shows its hook URL once with the setup notes, and its held payloads", async () => {
    await page.goto(`${rig.url}/console`);
    await page.getByRole("link", { name: "Connections" }).click();
    await page.getByRole("heading", { name: "Connections", level: 1 }).waitFor();
    await page.getByLabel("Vendor").selectOption({ label: "Angi Leads" });
    // Each secret with what it is and where to find it; a credential to pick, the company having two.
    await expect.poll(() => page.locator(".secret-field").textContent()).toContain("x-api-key");
    await page.getByLabel("Connection name").fill("Angi");
    await page.getByLabel("apiKey").fill("angi-console-key-000000001");
    await page.getByLabel("Upstream credential").selectOption({ label: "general-0" });
    await capture(page, "connection-add");
    await page.getByRole("button", { name: "Connect", exact: true }).click();
    const hookUrl = await page.getByLabel("Hook URL for Angi").inputValue();
    expect(hookUrl).toMatch(new RegExp(`^${rig.url}/hooks/hk_[A-Za-z0-9_-]{43}$`));
    expect(await page.locator(".setup-notes").textContent()).toContain("crmintegrations@angi.com");
    await page.locator("tr", { hasText: "Angi" }).getByText("active").waitFor();
    await capture(page, "connections");

    // Angi posts a lead its profile cannot map (no e-mail): stored, held, and shown behind the connection's link.
    const res = await fetch(hookUrl, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "angi-console-key-000000001" },
      body: JSON.stringify({ name: "Held Person", address: "1 Held St", city: "Austin", stateProvince: "TX" }),
    });
    expect(res.status).toBe(200);
    await page.getByRole("link", { name: "Held payloads of Angi" }).click();
    await page.waitForURL(/status=held/);
    const held = page.locator('tr[data-status="held"]');
    await held.waitFor();
    expect(await held.locator("td.held-reason").textContent()).toMatch(/email/);
    expect(await held.textContent()).toContain("Angi");
    await page.getByRole("button", { name: "Re-map held payloads" }).click();
    await page.getByText(/Re-mapped 0: 0 submission\(s\) queued; 1 still held/).waitFor();
    await capture(page, "submissions-held");
    // Reloaded, the page never shows the hook URL again.
    await page.goto(`${rig.url}/console/connections`);
    await page.getByRole("heading", { name: "Connections", level: 1 }).waitFor();
    expect(await page.content()).not.toContain(hookUrl.split("/hooks/")[1]);
  });

  it("counts open alerts in the top bar, lists one with what to do, and acknowledges and mutes it (docs/alerts.md)", async () => {
    const { ctx } = rig.gateway;
    const credential = await createUpstreamCredential({
      ctx,
      companyId: company.gatewayCompanyId,
      input: { name: "Alerting general", value: `svc_test_alerting.${randomBytes(24).toString("base64url")}` },
    });
    // What forwarding leaves when the platform refuses a key (forwarding/attempt.ts); the evaluator finds it now.
    await ctx.credentials.pause(credential.id, "upstream 401: key disabled", 1);
    await rig.gateway.alerts?.evaluate();
    await page.goto(`${rig.url}/console`);
    const count = page.locator("[data-alert-count]");
    await expect.poll(() => count.textContent()).toMatch(/^[1-9]\d*$/);
    await page.getByRole("link", { name: /^Alerts/ }).click();
    await page.getByRole("heading", { name: "Alerts" }).waitFor();
    const row = page.locator("tr", { hasText: credential.id });
    await expect.poll(() => row.getAttribute("data-status")).toBe("open");
    expect(await row.textContent()).toContain("Upstream credential paused");
    await capture(page, "alerts");
    await row.getByRole("button", { name: "Acknowledge Upstream credential paused" }).click();
    await page.getByText(/^Acknowledged: no more reminders/).waitFor();
    await page.getByLabel("Show alerts").selectOption("acknowledged");
    const acknowledged = page.locator("tr", { hasText: credential.id });
    await expect.poll(() => acknowledged.getAttribute("data-status")).toBe("acknowledged");
    await acknowledged.getByRole("button", { name: "Mute Upstream credential paused" }).click();
    await page.getByText(/^Muted: no notice/).waitFor();
    const [alert] = (await ctx.alerts.live(company.gatewayCompanyId)).filter((a) => a.resourceId === credential.id);
    expect(alert?.status).toBe("acknowledged");
    expect(Date.parse(alert?.mutedUntil ?? "")).toBeGreaterThan(Date.now());
  });

  it("shows the alert settings as the owner API has them and saves a threshold, a route and the webhook (docs/alerts.md)", async () => {
    const { ctx } = rig.gateway;
    await page.goto(`${rig.url}/console/alerts`);
    await page.getByRole("link", { name: "alert settings" }).click();
    await page.getByRole("heading", { name: "Alert settings", level: 1 }).waitFor();
    // The defaults, as GET /owner/v1/alert-settings answers them.
    const count = page.getByLabel("Refused proofs on a hook URL: Refusals");
    expect(await count.inputValue()).toBe("10");
    expect(await page.locator('[data-severity="warning"] input[name="route.warning.email"]').isChecked()).toBe(false);
    await count.fill("4");
    await page.locator('[data-severity="warning"] input[name="route.warning.email"]').check();
    await page.getByLabel("Webhook URL", { exact: true }).fill(`${rig.url}/ops-alerts`);
    await page.getByLabel("Webhook signing secret", { exact: true }).fill("s".repeat(40));
    await page.getByRole("button", { name: "Save alert settings" }).click();
    await page.getByText("Alert settings saved.").waitFor();
    await capture(page, "alert-settings");
    const saved = await getAlertSettings({ ctx, companyId: company.gatewayCompanyId });
    expect(saved.thresholds.proof_failures.count).toBe(4);
    expect(saved.routes.warning).toContain("email");
    expect(saved.channels.webhook).toEqual({ url: `${rig.url}/ops-alerts` });
    // Shown back as saved; the secret never is.
    expect(await page.getByLabel("Refused proofs on a hook URL: Refusals").inputValue()).toBe("4");
    expect(await page.content()).not.toContain("s".repeat(40));
  });

  it("shows a viewer the credentials, keys and live log, offers no action, and the API refuses one forced", async () => {
    const viewer = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(viewer, viewerEmail);
    await viewer.getByRole("link", { name: "Credentials" }).click();
    await viewer.getByRole("heading", { name: "Upstream credentials" }).waitFor();
    await viewer.locator("tr", { hasText: "Backup general" }).waitFor();
    expect(await viewer.getByRole("button", { name: /^(Rotate|Resume)/ }).count()).toBe(0);
    expect(await viewer.getByRole("button", { name: "Add credential" }).count()).toBe(0);
    await capture(viewer, "credentials-viewer");
    await viewer.getByRole("link", { name: "Keys" }).click();
    await viewer.getByRole("heading", { name: "Keys" }).waitFor();
    await viewer.locator("tr", { hasText: "LeadMarket vendor" }).waitFor();
    expect(await viewer.getByRole("button", { name: /^(Rotate|Edit bindings)/ }).count()).toBe(0);
    // A viewer may read a key's posting docs (D-325): the page the link opens names where the vendor posts.
    const docsLink = viewer.getByRole("link", { name: "Posting docs of LeadMarket vendor", exact: true });
    const docsHref = String(await docsLink.getAttribute("href"));
    const docsPage = await viewer.evaluate(async (href) => (await fetch(href)).text(), docsHref);
    expect(docsPage).toContain("/api/inbound/leads");
    expect(docsPage).toContain("x-api-key");
    await viewer.getByRole("link", { name: "Submissions" }).click();
    await viewer.locator('.live-status[data-live="live"]').waitFor();

    const keyId = vendorKey.split(".")[0] ?? "";
    const forced = (await viewer.evaluate(
      async ({ credentialId, keyId }) => {
        const { csrfToken } = (await (await fetch("/owner/v1/sessions/current")).json()) as { csrfToken: string };
        const send = async (method: string, path: string, body?: unknown) =>
          (
            await fetch(`/owner/v1${path}`, {
              method,
              headers: { "content-type": "application/json", "x-csrf-token": csrfToken },
              body: body === undefined ? undefined : JSON.stringify(body),
            })
          ).status;
        return [
          await send("POST", "/credentials", { name: "x", value: "svc_test_forced.xxxxxxxxxxxx" }),
          await send("POST", `/credentials/${credentialId}/rotate`, { value: "svc_test_forced.xxxxxxxxxxxx" }),
          await send("POST", `/credentials/${credentialId}/resume`),
          await send("POST", `/keys/${keyId}/rotate`, { overlapSeconds: 60 }),
          await send("PATCH", `/keys/${keyId}`, { responseMode: "async" }),
          // Positive control: a read the viewer may do.
          await send("GET", "/credentials"),
        ];
      },
      { credentialId: backup.credentialId, keyId },
    )) as number[];
    expect(forced).toEqual([403, 403, 403, 403, 403, 200]);
    await viewer.close();
  });

  it("offers a viewer no admin actions", async () => {
    const viewer = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(viewer, viewerEmail);
    await viewer.getByRole("link", { name: "Keys" }).click();
    await viewer.getByRole("heading", { name: "Keys" }).waitFor();
    expect(await viewer.getByRole("button", { name: "Issue key" }).count()).toBe(0);
    expect(await viewer.getByRole("button", { name: /^Revoke/ }).count()).toBe(0);
    await viewer.close();
  });
});
