import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, describe, expect, it, vi } from "vitest";
import { openStorage } from "../../../../src/gateway/storage/open-storage.js";
import type { SubmissionRow } from "../../../../src/gateway/storage/submissions/index.js";
import { createLogger } from "../../../../src/log.js";
import { everyDelivery, everySubmission } from "../../../helpers/store-reads.js";
import { testStorage } from "../../../helpers/test-store.js";

/** Starts a TypeScript script through tsx in its own process and waits for its first stdout line (JSON). */
async function start<T>(script: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...env },
  });
  const info = await new Promise<T>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code}`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once("line", (line) =>
      resolve(JSON.parse(line) as T),
    );
  });
  return { child, info };
}

const kill9 = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });

const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) await kill9(child);
});

/** A vendor's webhook endpoint: answers 200 to everything (what the test counts is in the gateway's stores). */
async function startReceiver(): Promise<{ url: string; close(): void }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200).end("ok"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe("crash safety: kill -9 during a drain (docs/forwarding.md)", () => {
  it("forwards every accepted submission once in effect across five SIGKILLs of the gateway, each with its webhook", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-crash-"));
    const receiver = await startReceiver();
    const sandbox = await start<{ url: string; adminToken: string; companies: { id: string; keys: string[] }[] }>(
      "bench/sandbox-server.ts",
      ["50", "100", "200", "1000", "2", "2"],
      { SANDBOX_DB_PATH: join(dir, "sandbox.db") },
    );
    children.push(sandbox.child);
    const vendorKeys = [
      "svc_test_crashvendor001.crash_secret_vendor_0000001",
      "svc_test_crashvendor002.crash_secret_vendor_0000002",
      "svc_test_crashvendor003.crash_secret_vendor_0000003",
      "svc_test_crashvendor004.crash_secret_vendor_0000004",
    ];
    const config = {
      companies: sandbox.info.companies.map((company, c) => ({
        id: `crash${c}`,
        name: `Crash ${c}`,
        credentials: company.keys.map((value, k) => ({ name: `g${k}`, value })),
        // One lead source and one booking vendor per company: each is subscribed to every event it may have.
        vendorKeys: company.keys.map((_, k) => ({
          name: `v${k}`,
          partnerType: k === 0 ? "lead_source" : "booking_vendor",
          scopes: ["leads:write", "appointments:write"],
          credential: `g${k}`,
          key: vendorKeys[c * 2 + k],
        })),
      })),
    };
    const configFile = join(dir, "config.json");
    writeFileSync(configFile, JSON.stringify(config));
    const dbPath = join(dir, "gateway.db");
    // Each restart listens on a fresh port (a fixed one could be taken meanwhile by another process on the machine).
    let url = "";
    /** Which start of the gateway `url` is; `restarted` resolves once the one being killed now is replaced. */
    let generation = 0;
    let restarted: Promise<void> = Promise.resolve();
    let killing = false;
    const startGateway = async () => {
      const gateway = await start<{ url: string }>("test/gateway/forwarding/crash/gateway-process.ts", [
        dbPath,
        sandbox.info.url,
        configFile,
        receiver.url,
      ]);
      children.push(gateway.child);
      url = gateway.info.url;
      generation++;
      return gateway.child;
    };
    let gateway = await startGateway();
    const crashAndRestart = async () => {
      let replaced: () => void = () => undefined;
      restarted = new Promise((resolve) => {
        replaced = resolve;
      });
      killing = true;
      await kill9(gateway);
      gateway = await startGateway();
      killing = false;
      replaced();
    };

    // Leads, each followed by an appointment naming its lead submission; posts that meet a dead gateway are retried
    // with the same idempotency key, so a post accepted just before a crash is a replay, not a second submission.
    const accepted = new Set<string>();
    const ids = new Map<string, Set<string>>();
    const post = async (path: string, body: unknown, idempotencyKey?: string): Promise<string> => {
      for (let failed = 0; ; ) {
        const sentTo = generation;
        try {
          const res = await fetch(`${url}${path}`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              "x-api-key": vendorKeys[Number(String((body as { v: number }).v))] ?? "",
              ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}),
            },
            body: JSON.stringify(body),
          });
          if (res.status === 202 || res.status === 200) {
            const { submissionId } = (await res.json()) as { submissionId: string };
            accepted.add(submissionId);
            const k = `${path} ${idempotencyKey ?? (body as { idempotencyKey?: string }).idempotencyKey}`;
            const seen = ids.get(k) ?? new Set<string>();
            seen.add(`${submissionId}:${res.status}`);
            ids.set(k, seen);
            return submissionId;
          }
          throw new Error(`unexpected ${res.status}: ${await res.text()}`);
        } catch (error) {
          if (error instanceof Error && error.message.startsWith("unexpected")) throw error;
          // The gateway it was sent to was killed under it: again to the next one, once it listens. A gateway that is
          // up and fails the same request three times is a failure of the test's own.
          if (!killing && sentTo === generation && ++failed >= 3) throw error;
          await restarted;
        }
      }
    };
    const pair = async (n: number) => {
      const v = n % 4;
      const leadId = await post(
        "/api/inbound/leads",
        {
          v,
          fullName: `Crash ${n}`,
          email: `crash${n}@example.com`,
          phone: "+1 555 010 0000",
          address: `${n} Crash Lane, Springfield, IL 62701`,
        },
        `crash-lead-${n}`,
      );
      await post("/api/inbound/appointments", {
        v,
        leadId,
        startsAt: "2026-12-01T15:00:00Z",
        endsAt: "2026-12-01T16:00:00Z",
        idempotencyKey: `crash-appointment-${n}`,
      });
    };

    const PAIRS = 500;
    let next = 0;
    const workers = Array.from({ length: 16 }, async () => {
      while (next < PAIRS) await pair(next++);
    });
    // Each kill comes once the gateway then running has accepted more of the burst (and forwards it meanwhile).
    for (let kill = 0; kill < 5; kill++) {
      const since = accepted.size;
      await vi.waitUntil(() => accepted.size >= since + 60 || next >= PAIRS, { timeout: 60_000, interval: 20 });
      expect(next).toBeLessThan(PAIRS); // positive control: the kill meets vendors still posting
      await crashAndRestart();
    }
    await Promise.all(workers);

    // The gateway's own stores (either store: TEST_STORE=postgres maps the path to the database the gateway used).
    const location = await testStorage(dbPath);
    const storage = await openStorage(
      location.databaseUrl ? { databaseUrl: location.databaseUrl } : { databasePath: dbPath },
      createLogger({ level: "silent" }),
    );
    const settled = (r: SubmissionRow) => r.status === "forwarded" || r.status === "failed";
    let rows: SubmissionRow[] = [];
    await vi.waitFor(
      async () => {
        rows = await everySubmission(storage);
        expect(rows.filter((r) => !settled(r)).map((r) => [r.id, r.status])).toEqual([]);
      },
      { timeout: 90_000, interval: 250 },
    );
    // §1: a lead source hears of each of its submissions' outcome, a booking vendor of each appointment it booked
    // (and of failures, none here). Whatever the crashes, each has exactly one delivery, and nothing else has one.
    const partnerType = new Map<string, string>();
    for (const companyId of await storage.tenants.companyIds())
      for (const key of await storage.vendorKeys.listOfCompany(companyId)) partnerType.set(key.id, key.partnerType);
    const deliveries = await everyDelivery(storage);
    await storage.close();
    const byDedupeKey = new Map<string, number>();
    for (const d of deliveries) byDedupeKey.set(d.dedupeKey, (byDedupeKey.get(d.dedupeKey) ?? 0) + 1);
    const owed = rows.flatMap((s) => {
      const leadSource = partnerType.get(s.vendorKeyId) === "lead_source";
      if (!leadSource && s.kind !== "appointment") return [];
      const appointmentId = (s.result as { appointmentId?: string } | null)?.appointmentId;
      const dedupeKey = leadSource ? `submission:${s.id}:${s.status}` : `appointment:${appointmentId}:created`;
      return [{ id: s.id, deliveries: byDedupeKey.get(dedupeKey) ?? 0 }];
    });
    receiver.close();
    expect(owed.filter((o) => o.deliveries !== 1)).toEqual([]);
    // Lead source: 250 leads and 250 appointments; booking vendor: 250 appointments.
    expect(owed).toHaveLength(PAIRS * 1.5);
    expect(deliveries).toHaveLength(PAIRS * 1.5);

    expect([...ids].filter(([, v]) => v.size > 1).map(([k, v]) => `${k} ${[...v].join(" ")}`)).toEqual([]);
    expect(rows.filter((r) => !accepted.has(r.id)).map((r) => r.id)).toEqual([]);
    expect(accepted.size).toBe(PAIRS * 2);
    expect(rows.length).toBe(PAIRS * 2);
    expect(rows.filter((r) => r.status !== "forwarded").map((r) => [r.id, r.status, r.lastError])).toEqual([]);

    const stats = (await (
      await fetch(`${sandbox.info.url}/sandbox/admin/stats`, {
        headers: { authorization: `Bearer ${sandbox.info.adminToken}` },
      })
    ).json()) as { appointments: { idempotencyKey: string; companyId: string }[]; leads: { count: number } };
    const created = stats.appointments.filter((a) => sandbox.info.companies.some((c) => c.id === a.companyId));
    expect(created).toHaveLength(PAIRS);
    expect(new Set(created.map((a) => a.idempotencyKey)).size).toBe(PAIRS);
  }, 240_000);
});
