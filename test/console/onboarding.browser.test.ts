import { randomBytes } from "node:crypto";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createVendorKey } from "../../src/gateway/keys/vendor-keys.js";
import { createOwner } from "../../src/gateway/tenants/create-owner.js";
import { browserAvailability, launchChromium, screenshot } from "../helpers/browser.js";
import { type Rig, type RigCompany, startRig } from "../helpers/forwarding.js";

// An unknown vendor onboarded in the console (docs/console.md, "Onboarding a vendor"; D-315, D-322): capture what it
// sends, suggest a profile from it, check the samples, publish — and a viewer sees it all but can act on none of it.

const availability = browserAvailability();
const PASSWORD = "onboarding test password";
const VENDOR_LEAD = {
  applicant: { given_name: "Ada", family_name: "Lovelace" },
  contact_email: "ada.lovelace@example.com",
  mobile: "+1 512 555 0100",
  service_address: "12 Analytical Way, Austin, TX 78701",
};

let rig: Rig;
let company: RigCompany;
let browser: Browser;
let keyId: string;
let vendorKey: string;
const emails = { admin: "", viewer: "" };

async function signedIn(email: string): Promise<Page> {
  const p = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  p.setDefaultTimeout(15_000);
  await p.goto(`${rig.url}/console`);
  await p.getByLabel("Email").fill(email);
  await p.getByLabel("Password").fill(PASSWORD);
  await p.keyboard.press("Enter");
  await p.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
  return p;
}

describe.skipIf(!availability.available)("onboarding an unknown vendor in the console", () => {
  beforeAll(async () => {
    rig = await startRig({ perKey: 60, perCompany: 300, egress: 600, windowMs: 60_000 });
    company = await rig.addCompany("Onboarding Console");
    const { ctx } = rig.gateway;
    const companyId = company.gatewayCompanyId;
    emails.admin = `admin-${randomBytes(3).toString("hex")}@onboard.test`;
    emails.viewer = `viewer-${randomBytes(3).toString("hex")}@onboard.test`;
    await createOwner({ ctx, input: { companyId, email: emails.admin, name: "A", role: "admin", password: PASSWORD } });
    await createOwner({
      ctx,
      input: { companyId, email: emails.viewer, name: "V", role: "viewer", password: PASSWORD },
    });
    const key = await createVendorKey({
      ctx,
      companyId,
      input: {
        name: "New vendor",
        partnerType: "lead_source",
        scopes: ["leads:write"],
        credentialId: company.credentials[0]?.id ?? "",
      },
    });
    keyId = key.id;
    vendorKey = key.key;
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await rig?.close();
  });

  it("capture, suggest, check, publish; then the vendor's lead is mapped and forwarded", async () => {
    const page = await signedIn(emails.admin);
    await page.goto(`${rig.url}/console/keys/${keyId}/captures`);
    await page.getByRole("heading", { name: "Captured payloads" }).waitFor();
    await page.getByRole("button", { name: "Start capturing" }).click();
    await page.locator('[data-capturing="true"]').waitFor();

    // The vendor's test lead: accepted as usual, stored, not forwarded.
    const sent = await fetch(`${rig.url}/api/inbound/leads`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": vendorKey },
      body: JSON.stringify(VENDOR_LEAD),
    });
    expect(await sent.json()).toMatchObject({ status: "captured" });
    await page.reload();
    await page.locator("li.capture").filter({ hasText: "ada.lovelace@example.com" }).waitFor();
    await page.screenshot({ path: screenshot("onboarding-captures"), fullPage: true });

    await page.getByRole("button", { name: "Suggest from the captured payloads" }).click();
    await page.getByRole("heading", { name: "Suggested from the captured payloads" }).waitFor();
    // Each field with its confidence.
    for (const field of ["fullName", "email", "phone", "address"]) {
      const confidence = await page
        .locator(`tr[data-field="${field}"] [data-confidence]`)
        .getAttribute("data-confidence");
      expect(["certain", "likely", "guess"]).toContain(confidence);
    }
    // Publishing waits for the owner's check of each captured payload's expected output.
    const publish = page.getByRole("button", { name: "Publish" });
    await expect.poll(() => publish.isDisabled()).toBe(true);
    await expect(page.locator(".suggested-sample pre").first().textContent()).resolves.toContain("Ada Lovelace");
    await page.getByLabel(/captured 1: this expected output is right/).check();
    await expect.poll(() => publish.isDisabled(), { timeout: 15_000 }).toBe(false);
    await page.screenshot({ path: screenshot("onboarding-suggested"), fullPage: true });
    await publish.click();
    await page.getByText(/Published v1/).waitFor();

    // Bound to the key and out of capture mode, the vendor's next lead is mapped and forwarded.
    const { ctx } = rig.gateway;
    const [profile] = (await ctx.profiles.profilesOf(company.gatewayCompanyId)).filter((p) =>
      p.name.includes("suggested"),
    );
    const latest = await ctx.profiles.latestVersionOf(profile?.id ?? "");
    expect(latest?.status).toBe("published");
    await ctx.vendorKeys.update(keyId, { captureSince: null, leadProfileVersionId: latest?.id ?? null });
    const accepted = await fetch(`${rig.url}/api/inbound/leads`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": vendorKey },
      body: JSON.stringify({ ...VENDOR_LEAD, service_address: "14 Analytical Way, Austin, TX 78701" }),
    });
    expect(accepted.status).toBe(202);
    await page.goto(`${rig.url}/console/submissions`);
    await page.getByLabel("Find a person").fill("ada.lovelace@example.com");
    await page.getByRole("button", { name: "Search" }).click();
    await page.locator("td.person").filter({ hasText: "a***@example.com" }).waitFor();
    await page.close();
  });

  it("a viewer sees the captures and the log, and has no button to act", async () => {
    const page = await signedIn(emails.viewer);
    await page.goto(`${rig.url}/console/keys/${keyId}/captures`);
    await page.getByRole("heading", { name: "Captured payloads" }).waitFor();
    await page.locator("li.capture").first().waitFor();
    await page.getByText("Read-only (viewer).").waitFor();
    expect(await page.getByRole("button", { name: "Suggest from the captured payloads" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: /capturing/ }).count()).toBe(0);
    // The API refuses the viewer too (the console only hides what it may not do).
    const refused = await page.evaluate(async (id) => {
      const res = await fetch(`/owner/v1/keys/${id}/capture`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ on: true }),
      });
      return res.status;
    }, keyId);
    expect([403]).toContain(refused);
    await page.close();
  });
});
