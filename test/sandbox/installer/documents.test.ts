import { afterEach, describe, expect, it } from "vitest";
import { type Receiver, startReceiver } from "../webhooks/support.js";
import {
  api,
  CRESTLINE_KEY,
  createJob,
  drained,
  type InstallerSandbox,
  installerSandbox,
  subscribeInstall,
  VOLTWORKS,
  VOLTWORKS_KEY,
  VOLTWORKS_READ_ONLY_KEY,
} from "./support.js";

/** The sandbox's clock runs with real time (webhook receivers check the signing time) plus a shift the test sets. */
let shift = 0;
const sandboxes: InstallerSandbox[] = [];
const receivers: Receiver[] = [];
afterEach(async () => {
  for (const s of sandboxes.splice(0)) s.close();
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

function open(): InstallerSandbox {
  shift = 0;
  const sandbox = installerSandbox({ clock: { now: () => Date.now() + shift } });
  sandboxes.push(sandbox);
  return sandbox;
}

const link = async (sandbox: InstallerSandbox, documentId: string, key = VOLTWORKS_KEY) =>
  api(sandbox, "GET", `/api/partner/v1/documents/${documentId}`, { key });

describe("§2.1 Document URLs: signed, time-limited, bound to the installer company", () => {
  it("a fresh URL by document id fetches the content; the seed's documents too", async () => {
    const sandbox = open();
    const before = Date.now();
    const fresh = await link(sandbox, "doc_sunrise_4001_scope");
    expect(fresh.status).toBe(200);
    const resource = fresh.body.resource as Record<string, string>;
    expect(resource).toMatchObject({
      id: "doc_sunrise_4001_scope",
      jobId: "job_sunrise_4001",
      category: "SCOPE",
      url: expect.stringMatching(
        /^\/api\/partner\/v1\/documents\/doc_sunrise_4001_scope\/content\?expires=\d+&signature=[0-9a-f]{64}$/,
      ),
    });
    // 15 minutes, to the second.
    const ttl = Date.parse(resource.urlExpiresAt ?? "") - before;
    expect(ttl).toBeGreaterThan(15 * 60 * 1000 - 1000);
    expect(ttl).toBeLessThanOrEqual(15 * 60 * 1000 + 1000);
    const content = await api(sandbox, "GET", resource.url ?? "", { key: VOLTWORKS_READ_ONLY_KEY });
    expect(content.status).toBe(200);
    expect(content.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(content.text).toContain("doc_sunrise_4001_scope");
  });

  it("another company's key is refused (404), an expired URL is 403, a tampered one 403; a fresh one works", async () => {
    const sandbox = open();
    const url = ((await link(sandbox, "doc_sunrise_4001_scope")).body.resource as { url: string }).url;
    expect((await api(sandbox, "GET", url, { key: CRESTLINE_KEY })).status).toBe(404);
    expect((await link(sandbox, "doc_sunrise_4001_scope", CRESTLINE_KEY)).status).toBe(404);
    const tampered = url.replace(/signature=([0-9a-f])/, (_m, c: string) => `signature=${c === "0" ? "1" : "0"}`);
    expect((await api(sandbox, "GET", tampered, { key: VOLTWORKS_KEY })).status).toBe(403);
    const later = url.replace(/expires=(\d+)/, (_m, s: string) => `expires=${Number(s) + 3600}`);
    expect((await api(sandbox, "GET", later, { key: VOLTWORKS_KEY })).status).toBe(403);

    const expiresAt = Number(/expires=(\d+)/.exec(url)?.[1]) * 1000;
    shift = expiresAt - Date.now() - 2000;
    expect((await api(sandbox, "GET", url, { key: VOLTWORKS_KEY })).status).toBe(200);
    shift = expiresAt - Date.now();
    const expired = await api(sandbox, "GET", url, { key: VOLTWORKS_KEY });
    expect(expired.status).toBe(403);
    expect(expired.body).toMatchObject({ reason: "expired" });
    const renewed = ((await link(sandbox, "doc_sunrise_4001_scope")).body.resource as { url: string }).url;
    expect((await api(sandbox, "GET", renewed, { key: VOLTWORKS_KEY })).status).toBe(200);
  });

  it("only while assigned: after an unassignment the document and its URL are 404", async () => {
    const sandbox = open();
    const url = ((await link(sandbox, "doc_sunrise_4001_scope")).body.resource as { url: string }).url;
    sandbox.admin.installJobs.unassign("job_sunrise_4001");
    expect((await api(sandbox, "GET", url, { key: VOLTWORKS_KEY })).status).toBe(404);
    expect((await link(sandbox, "doc_sunrise_4001_scope")).status).toBe(404);
  });

  it("install.document_available carries a signed URL bound to the assigned company, which fetches the document", async () => {
    const sandbox = open();
    const hook = await startReceiver();
    receivers.push(hook);
    await subscribeInstall(sandbox, VOLTWORKS, hook, { partnerType: "installer_company" });
    const job = createJob(sandbox);
    const { documentId } = sandbox.admin.installJobs.addDocument({
      jobId: job.id,
      category: "PERMIT",
      fileName: "permit.pdf",
      contentType: "application/pdf",
      content: "%PDF-1.7 permit",
    });
    await drained(sandbox);
    const event = hook.received.find((r) => r.envelope.event === "install.document_available");
    const document = event?.envelope.data.document as Record<string, string>;
    expect(document).toMatchObject({ id: documentId, category: "PERMIT", url: expect.any(String) });
    const fetched = await api(sandbox, "GET", document.url ?? "", { key: VOLTWORKS_KEY });
    expect(fetched.status).toBe(200);
    expect(fetched.text).toBe("%PDF-1.7 permit");
    expect(fetched.headers.get("content-type")).toBe("application/pdf");
    expect((await api(sandbox, "GET", document.url ?? "", { key: CRESTLINE_KEY })).status).toBe(404);
  });
});
