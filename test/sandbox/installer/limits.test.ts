import { afterEach, describe, expect, it } from "vitest";
import { api, type InstallerSandbox, installerSandbox, VOLTWORKS_KEY, VOLTWORKS_READ_ONLY_KEY } from "./support.js";

let sandbox: InstallerSandbox | undefined;
afterEach(() => sandbox?.close());

describe("§8 limits on the Installer API (docs/decisions.md)", () => {
  it("per key and per owner apply; the inbound per-IP guard does not: keyless requests are 401, never 429", async () => {
    sandbox = installerSandbox({
      limits: {
        key: { limit: 3, windowMs: 60_000 },
        owner: { limit: 5, windowMs: 60_000 },
        ip: { limit: 2, windowMs: 60_000 },
      },
    });
    const s = sandbox;
    const keyless = await Promise.all([1, 2, 3, 4].map(() => api(s, "GET", "/api/partner/v1/jobs")));
    expect(keyless.map((r) => r.status)).toEqual([401, 401, 401, 401]);
    // The same source on the Inbound API meets its network guard: the positive control.
    const inbound = [];
    for (let i = 0; i < 3; i++) inbound.push((await api(s, "GET", "/api/inbound/jobs")).status);
    expect(inbound).toEqual([401, 401, 429]);

    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await api(s, "GET", "/api/partner/v1/jobs", { key: VOLTWORKS_KEY })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const other: number[] = [];
    for (let i = 0; i < 3; i++) {
      other.push((await api(s, "GET", "/api/partner/v1/jobs", { key: VOLTWORKS_READ_ONLY_KEY })).status);
    }
    // The owner's 5 are shared: 3 by the first key, 2 by the second.
    expect(other).toEqual([200, 200, 429]);
    const refused = await api(s, "GET", "/api/partner/v1/jobs", { key: VOLTWORKS_READ_ONLY_KEY });
    expect(refused.headers.get("ratelimit-policy")).toBe('"key";q=3;w=60, "owner";q=5;w=60');
    expect(refused.body.limits).toEqual(["owner"]);
  });
});
