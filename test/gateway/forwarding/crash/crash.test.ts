import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";

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

/** A vendor's webhook endpoint: answers 200 to everything (what the test counts is in the gateway's database). */
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
    const startGateway = async () => {
      const gateway = await start<{ url: string }>("test/gateway/forwarding/crash/gateway-process.ts", [
        dbPath,
        sandbox.info.url,
        configFile,
        receiver.url,
      ]);
      children.push(gateway.child);
      url = gateway.info.url;
      return gateway.child;
    };
    let gateway = await startGateway();

    // Leads, each followed by an appointment naming its lead submission; posts that meet a dead gateway are retried
    // with the same idempotency key, so a post accepted just before a crash is a replay, not a second submission.
    const accepted = new Set<string>();
    const ids = new Map<string, Set<string>>();
    const post = async (path: string, body: unknown, idempotencyKey?: string): Promise<string> => {
      for (;;) {
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
          await new Promise((r) => setTimeout(r, 100));
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
    for (let kill = 0; kill < 5; kill++) {
      await new Promise((r) => setTimeout(r, 700));
      await kill9(gateway);
      gateway = await startGateway();
    }
    await Promise.all(workers);

    const db = new Database(dbPath, { readonly: true, fileMustExist: true });
    const deadline = Date.now() + 90_000;
    let pending = 1;
    while (pending > 0 && Date.now() < deadline) {
      pending = (
        db.prepare("select count(*) n from submissions where status not in ('forwarded', 'failed')").get() as {
          n: number;
        }
      ).n;
      await new Promise((r) => setTimeout(r, 250));
    }
    const rows = db
      .prepare("select id, kind, status, idempotency_key, vendor_key_id, created_at from submissions")
      .all() as {
      id: string;
      kind: string;
      status: string;
      last_error: string | null;
    }[];
    // §1: a lead source hears of each of its submissions' outcome, a booking vendor of each appointment it booked
    // (and of failures, none here). Whatever the crashes, each has exactly one delivery, and nothing else has one.
    const owed = db
      .prepare(
        `select s.id, count(d.id) as deliveries from submissions s join vendor_keys k on k.id = s.vendor_key_id
         left join webhook_deliveries d on d.dedupe_key = case
           when k.partner_type = 'lead_source' then 'submission:' || s.id || ':' || s.status
           else 'appointment:' || json_extract(s.result, '$.appointmentId') || ':created' end
         where k.partner_type = 'lead_source' or s.kind = 'appointment' group by s.id`,
      )
      .all() as { id: string; deliveries: number }[];
    const deliveries = (db.prepare("select count(*) as n from webhook_deliveries").get() as { n: number }).n;
    db.close();
    receiver.close();
    expect(owed.filter((o) => o.deliveries !== 1)).toEqual([]);
    // Lead source: 250 leads and 250 appointments; booking vendor: 250 appointments.
    expect(owed).toHaveLength(PAIRS * 1.5);
    expect(deliveries).toBe(PAIRS * 1.5);

    expect([...ids].filter(([, v]) => v.size > 1).map(([k, v]) => `${k} ${[...v].join(" ")}`)).toEqual([]);
    expect(rows.filter((r) => !accepted.has(r.id))).toEqual([]);
    expect(accepted.size).toBe(PAIRS * 2);
    expect(rows.length).toBe(PAIRS * 2);
    expect(rows.filter((r) => r.status !== "forwarded")).toEqual([]);

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
