import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { newApp } from "../../../src/http/app.js";
import { listen } from "../../../src/http/server.js";
import { createLogger } from "../../../src/log.js";
import type { Caller } from "../../../src/sandbox/context.js";
import { openSandboxDb } from "../../../src/sandbox/db/client.js";
import type { SandboxVariables } from "../../../src/sandbox/env.js";
import { DocumentUrls } from "../../../src/sandbox/installer/documents/document-urls.js";
import { idempotent } from "../../../src/sandbox/installer/idempotency/idempotent.js";
import { InFlightKeys } from "../../../src/sandbox/installer/idempotency/in-flight.js";
import { api, CRESTLINE_KEY, type InstallerSandbox, installerSandbox, statusEvent, VOLTWORKS_KEY } from "./support.js";

const sandboxes: InstallerSandbox[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const s of sandboxes.splice(0)) s.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function open(options: Parameters<typeof installerSandbox>[0] = {}): InstallerSandbox {
  const sandbox = installerSandbox(options);
  sandboxes.push(sandbox);
  return sandbox;
}

const statusPath = (jobId: string) => `/api/partner/v1/jobs/${jobId}/status-events`;

describe("§4, §8: Idempotency-Key is required on every Installer API POST and PUT", () => {
  it.each([
    ["POST", "status-events", { status: "ACKNOWLEDGED", occurredAt: new Date().toISOString(), expectedVersion: 1 }],
    ["PUT", "schedule", { status: "CANCELLED", timeZone: "UTC", expectedVersion: 1 }],
    ["PUT", "technician-assignments", { membershipIds: [], expectedVersion: 1 }],
    ["POST", "evidence", { kind: "photo", fileName: "a.jpg", contentType: "image/jpeg", contentBase64: "AAAA" }],
  ])("%s …/%s without the header is 400 naming it, and changes nothing", async (method, suffix, json) => {
    const sandbox = open();
    const reply = await api(sandbox, method, `/api/partner/v1/jobs/job_sunrise_4001/${suffix}`, {
      key: VOLTWORKS_KEY,
      json,
      idempotencyKey: null,
    });
    expect(reply.status).toBe(400);
    expect(reply.body.field).toBe("Idempotency-Key");
    expect(sandbox.admin.installJobs.read("job_sunrise_4001").version).toBe(1);
  });

  it("up to 128 characters of A-Z a-z 0-9 . _ : - are accepted; 129, a space or a slash are 400", async () => {
    const sandbox = open();
    const key128 = `${"A-z0.9_:".repeat(16)}`;
    expect(key128).toHaveLength(128);
    const ok = await api(sandbox, "POST", statusPath("job_sunrise_4001"), {
      key: VOLTWORKS_KEY,
      json: statusEvent("ACKNOWLEDGED", 1),
      idempotencyKey: key128,
    });
    expect(ok.status).toBe(201);
    for (const bad of [`${key128}x`, "has space", "a/b", "a*b"]) {
      const reply = await api(sandbox, "POST", statusPath("job_sunrise_4001"), {
        key: VOLTWORKS_KEY,
        json: statusEvent("EN_ROUTE", 2),
        idempotencyKey: bad,
      });
      expect(reply.status).toBe(400);
      expect(reply.body.field).toBe("Idempotency-Key");
    }
  });
});

describe("§4.1 rule 3: a replay returns the original answer; another body or operation is 409", () => {
  it("the same key and body return the same bytes and status, with no new version, feed item or event", async () => {
    const sandbox = open();
    const body = statusEvent("ACKNOWLEDGED", 1, { note: "on it" });
    const send = (json: unknown) =>
      api(sandbox, "POST", statusPath("job_sunrise_4001"), { key: VOLTWORKS_KEY, json, idempotencyKey: "replay-1" });
    const first = await send(body);
    expect(first.status).toBe(201);
    const events = sandbox.admin.stats().events.count;
    const feed = await api(sandbox, "GET", "/api/partner/v1/jobs", { key: VOLTWORKS_KEY });

    // Key order does not make another body.
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    for (const again of [await send(body), await send(reordered)]) {
      expect(again.status).toBe(201);
      expect(again.text).toBe(first.text);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
    }
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(sandbox.admin.installJobs.read("job_sunrise_4001").version).toBe(2);
    expect(sandbox.admin.stats().events.count).toBe(events);
    const after = await api(sandbox, "GET", "/api/partner/v1/jobs", { key: VOLTWORKS_KEY });
    expect(after.body.nextCursor).toBe(feed.body.nextCursor);
  });

  it("the same key with another body, or on another operation, is 409 and runs nothing", async () => {
    const sandbox = open();
    const send = (path: string, json: unknown, method = "POST") =>
      api(sandbox, method, path, { key: VOLTWORKS_KEY, json, idempotencyKey: "reused-key" });
    expect((await send(statusPath("job_sunrise_4001"), statusEvent("ACKNOWLEDGED", 1))).status).toBe(201);
    const otherBody = await send(statusPath("job_sunrise_4001"), statusEvent("EN_ROUTE", 2));
    expect(otherBody.status).toBe(409);
    expect(otherBody.body).toMatchObject({ field: "Idempotency-Key", reason: "reused" });
    const otherJob = await send(statusPath("job_brightline_5001"), statusEvent("ACKNOWLEDGED", 1));
    expect(otherJob.status).toBe(409);
    const otherOperation = await send(
      "/api/partner/v1/jobs/job_sunrise_4001/technician-assignments",
      { membershipIds: [], expectedVersion: 2 },
      "PUT",
    );
    expect(otherOperation.status).toBe(409);
    expect(sandbox.admin.installJobs.read("job_sunrise_4001").version).toBe(2);
    expect(sandbox.admin.installJobs.read("job_brightline_5001").version).toBe(1);
  });

  it("§8: keys are scoped to the key owner — another installer company may use the same key", async () => {
    const sandbox = open();
    const key = "shared-by-two-owners";
    const voltworks = await api(sandbox, "POST", statusPath("job_sunrise_4001"), {
      key: VOLTWORKS_KEY,
      json: statusEvent("ACKNOWLEDGED", 1),
      idempotencyKey: key,
    });
    const crestline = await api(sandbox, "POST", statusPath("job_sunrise_4101"), {
      key: CRESTLINE_KEY,
      json: statusEvent("ACKNOWLEDGED", 1),
      idempotencyKey: key,
    });
    expect([voltworks.status, crestline.status]).toEqual([201, 201]);
  });

  it("a 404, 409 or 422 answer is stored and replayed; a 400 is not (the fixed body runs under the same key)", async () => {
    const sandbox = open();
    const send = (json: unknown, idempotencyKey: string, jobId = "job_sunrise_4001") =>
      api(sandbox, "POST", statusPath(jobId), { key: VOLTWORKS_KEY, json, idempotencyKey });

    const complete = statusEvent("COMPLETE", 1);
    const refused = await send(complete, "k-422");
    expect(refused.status).toBe(422);
    expect((await send(complete, "k-422")).text).toBe(refused.text);

    const invalid = await send({ status: "ACKNOWLEDGED", expectedVersion: 1 }, "k-400");
    expect(invalid.status).toBe(400);
    const fixed = await send(statusEvent("ACKNOWLEDGED", 1), "k-400");
    expect(fixed.status).toBe(201);

    const enRoute = statusEvent("EN_ROUTE", 1);
    const stale = await send(enRoute, "k-409");
    expect(stale.status).toBe(409);
    expect((await send(enRoute, "k-409")).text).toBe(stale.text);

    const acknowledge = statusEvent("ACKNOWLEDGED", 1);
    const hidden = await send(acknowledge, "k-404", "job_sunrise_4101");
    expect(hidden.status).toBe(404);
    expect((await send(acknowledge, "k-404", "job_sunrise_4101")).text).toBe(hidden.text);
  });

  it("§8: a replay counts against the rate limits like any request", async () => {
    const sandbox = open({ limits: { key: { limit: 3, windowMs: 60_000 } } });
    const body = statusEvent("ACKNOWLEDGED", 1);
    const send = () =>
      api(sandbox, "POST", statusPath("job_sunrise_4001"), { key: VOLTWORKS_KEY, json: body, idempotencyKey: "rl" });
    expect((await send()).status).toBe(201);
    expect((await send()).status).toBe(201);
    expect((await send()).status).toBe(201);
    const limited = await send();
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  it("records are kept 24 hours, then the key may be used again", async () => {
    let now = Date.parse("2026-11-25T12:00:00.000Z");
    const sandbox = open({ clock: { now: () => now } });
    const at = () => new Date(now).toISOString();
    const send = (status: string, version: number) =>
      api(sandbox, "POST", statusPath("job_sunrise_4001"), {
        key: VOLTWORKS_KEY,
        json: { status, occurredAt: at(), expectedVersion: version },
        idempotencyKey: "day-old",
      });
    expect((await send("ACKNOWLEDGED", 1)).status).toBe(201);
    now += 24 * 60 * 60 * 1000 - 1;
    expect((await send("EN_ROUTE", 2)).status).toBe(409);
    now += 1;
    expect((await send("EN_ROUTE", 2)).status).toBe(201);
  });

  it("records are durable: a restarted sandbox on the same file replays the same bytes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "installer-idempotency-"));
    dirs.push(dir);
    const dbPath = join(dir, "sandbox.db");
    const body = statusEvent("ACKNOWLEDGED", 1);
    const send = (sandbox: InstallerSandbox) =>
      api(sandbox, "POST", statusPath("job_sunrise_4001"), { key: VOLTWORKS_KEY, json: body, idempotencyKey: "dur" });
    const first = installerSandbox({ dbPath });
    const original = await send(first);
    first.close();
    const second = open({ dbPath });
    const replayed = await send(second);
    expect(replayed.status).toBe(201);
    expect(replayed.text).toBe(original.text);
  });
});

describe("§8: a request whose key is still in flight gets a 409", () => {
  it("while the first request's body is still arriving, a second with the key is 409; the first then completes", async () => {
    const sandbox = open();
    const server = await listen(sandbox.app, { host: "127.0.0.1", port: 0 });
    try {
      const body = JSON.stringify(statusEvent("ACKNOWLEDGED", 1));
      const headers = {
        "x-api-key": VOLTWORKS_KEY,
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(body)),
        "idempotency-key": "slow-body",
      };
      const first = new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request(`${server.url}${statusPath("job_sunrise_4001")}`, { method: "POST", headers }, (res) => {
          let text = "";
          res.setEncoding("utf8").on("data", (chunk: string) => {
            text += chunk;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        });
        req.on("error", reject);
        req.write(body.slice(0, 10));
        // The guard admits (and counts) the request just before its key is claimed, in the same turn.
        vi.waitFor(() => expect(sandbox.admin.stats().traffic.totals.admitted).toBe(1), { timeout: 5000 })
          .then(async () => {
            const second = await fetch(`${server.url}${statusPath("job_sunrise_4001")}`, {
              method: "POST",
              headers,
              body,
            });
            expect(second.status).toBe(409);
            expect(await second.json()).toMatchObject({ field: "Idempotency-Key", reason: "in_flight" });
            req.end(body.slice(10));
          })
          .catch(reject);
      });
      const answered = await first;
      expect(answered.status).toBe(201);
      const replay = await fetch(`${server.url}${statusPath("job_sunrise_4001")}`, { method: "POST", headers, body });
      expect(await replay.text()).toBe(answered.text);
    } finally {
      await server.close();
    }
  });
});

describe("§7: a 5xx or 429 answer is never stored, so a retry with the same key really runs", () => {
  /** The middleware on a bare route whose answers the test scripts. */
  function scripted(statuses: number[]) {
    const { db, sqlite } = openSandboxDb(":memory:");
    const caller: Caller = {
      keyId: "svc_test_key",
      companyId: "org_owner",
      kind: "installer-company",
      scopes: [],
      personId: null,
      contractorId: null,
    };
    const app = newApp<SandboxVariables>({ log: createLogger({ level: "silent" }) });
    let runs = 0;
    app.use("*", async (c, next) => {
      c.set("ctx", { db, clock: { now: () => Date.now() }, documentUrls: new DocumentUrls() });
      c.set("caller", caller);
      await next();
    });
    app.post("/write", idempotent(new InFlightKeys()), (c) => {
      const status = statuses[runs++] ?? 201;
      return c.json({ run: runs }, status as 201);
    });
    const send = async () => {
      const res = await app.request("/write", {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": "retry-me" },
        body: "{}",
      });
      return { status: res.status, text: await res.text() };
    };
    return { send, runs: () => runs, close: () => sqlite.close() };
  }

  it.each([500, 502, 503, 429])("a %i is not stored: the retry runs and its answer is the one kept", async (status) => {
    const route = scripted([status]);
    try {
      expect((await route.send()).status).toBe(status);
      const retried = await route.send();
      expect(retried).toEqual({ status: 201, text: '{"run":2}' });
      expect(await route.send()).toEqual(retried);
      expect(route.runs()).toBe(2);
    } finally {
      route.close();
    }
  });
});
