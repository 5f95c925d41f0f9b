import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type InstallerSandbox, installerSandbox } from "./support.js";

let sandbox: InstallerSandbox;
beforeEach(() => {
  sandbox = installerSandbox();
});
afterEach(() => sandbox.close());

describe("OpenAPI document of the sandbox", () => {
  it("describes every Installer API route, with the Idempotency-Key header on writes, and the company's side", async () => {
    const res = await sandbox.app.request("/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>>;
    };
    const paths = Object.keys(doc.paths);
    for (const path of [
      "/api/partner/v1/jobs",
      "/api/partner/v1/jobs/{job_id}",
      "/api/partner/v1/jobs/{job_id}/status-events",
      "/api/partner/v1/jobs/{job_id}/schedule",
      "/api/partner/v1/jobs/{job_id}/technician-assignments",
      "/api/partner/v1/technicians",
      "/api/partner/v1/documents/{doc_id}",
      "/api/partner/v1/documents/{doc_id}/content",
      "/api/partner/v1/jobs/{job_id}/evidence",
      "/sandbox/admin/install-jobs",
      "/sandbox/admin/install-jobs/{job_id}/assign",
    ]) {
      expect(paths).toContain(path);
    }
    const header = doc.paths["/api/partner/v1/jobs/{job_id}/status-events"]?.post?.parameters?.find(
      (p) => p.in === "header",
    );
    expect(header?.name).toBe("idempotency-key");
  });
});
