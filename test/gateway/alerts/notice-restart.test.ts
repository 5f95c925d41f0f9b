import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { updateAlertSettings } from "../../../src/gateway/alerts/settings-admin.js";
import { createConnection } from "../../../src/gateway/connections/create-connection.js";
import { postJson, seedCompany, startTestGateway, type TestGateway } from "../../helpers/gateway.js";

/**
 * Alerts across a restart (docs/alerts.md): a notice a channel refused is owed in the database and sent by the next
 * process (D-347), and refused proofs are counted from the database's window, not from the evaluator's first read
 * (D-349). A file database (on PostgreSQL, the same database each time: test-store.ts) and a fixed master key are
 * shared by the gateways one after the other.
 */
const PRESETS = new URL("../../../presets", import.meta.url).pathname;
const SECRET = "ops-endpoint-signing-secret-0123456789";
const ANGI_KEY = "angi-alerts-restart-key-01";
const BOOKING = (
  JSON.parse(readFileSync(`${PRESETS}/angi/samples/02-instant-booking.json`, "utf8")) as {
    request: { body: string };
  }
).request.body;

interface Posted {
  headers: IncomingHttpHeaders;
  raw: string;
  status: number;
}

let dir: string;
let server: Server;
let endpoint: string;
let healthy = false;
const posted: Posted[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "pgw-alert-restart-"));
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const status = healthy ? 200 : 500;
      posted.push({ headers: req.headers, raw: Buffer.concat(chunks).toString("utf8"), status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ops`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

function expectSigned(post: Posted): void {
  const timestamp = String(post.headers["x-svc-timestamp"]);
  const expected = Buffer.from(
    `v1=${createHmac("sha256", SECRET).update(`${timestamp}.`).update(post.raw).digest("hex")}`,
  );
  const given = Buffer.from(String(post.headers["x-svc-signature"]));
  expect(given.length).toBe(expected.length);
  expect(timingSafeEqual(given, expected)).toBe(true);
}

describe("alerts across a restart", () => {
  it("counts refused proofs from the stored window, and a webhook notice refused before the restart is sent after it", async () => {
    const options = {
      presetsDir: PRESETS,
      databasePath: join(dir, "gateway.db"),
      masterKey: randomBytes(32).toString("hex"),
      // One retry, 2 s after the refusal: by then the gateway that was refused has stopped.
      alerts: { intervalMs: 100, retrySchedule: [2_000] },
    };
    let gateway: TestGateway | undefined = await startTestGateway({}, options);
    try {
      const { ctx } = gateway.gateway;
      const seeded = await seedCompany(gateway.gateway);
      const companyId = seeded.company.id;
      await updateAlertSettings({
        ctx,
        companyId,
        change: {
          thresholds: {
            proof_failures: { count: 5, windowMinutes: 15 },
            vendor_quiet: { enabled: false },
            forwarding_latency: { enabled: false },
          },
          routes: { warning: ["webhook"], critical: ["webhook"] },
          channels: { webhook: { url: endpoint, secret: SECRET } },
        },
      });
      const connection = await createConnection({
        ctx,
        companyId,
        input: { name: "Angi", preset: "angi", secrets: { apiKey: ANGI_KEY } },
      });
      const forge = async (n: number) => {
        for (let i = 0; i < n; i++) {
          const res = await postJson(connection.hookUrl, JSON.parse(BOOKING), { "x-api-key": `forged-${i}` });
          expect(res.status).toBe(401);
        }
      };
      const refusals = async () => (await gateway?.gateway.ctx.connections.get(connection.id))?.proofFailures;

      // Three refusals, written to the database: under the threshold of five.
      await forge(3);
      await expect.poll(refusals, { timeout: 10_000 }).toBe(3);
      await gateway.gateway.alerts?.evaluate();
      expect(await ctx.alerts.live(companyId)).toEqual([]);
      await gateway.close();

      // Two more after the restart: five within the window, counted from the database (an evaluator that counted
      // from its first read would see two).
      gateway = await startTestGateway({}, options);
      const hookUrl = connection.hookUrl.replace(/^http:\/\/127\.0\.0\.1:\d+/, gateway.url);
      connection.hookUrl = hookUrl;
      await forge(2);
      await expect.poll(refusals, { timeout: 10_000 }).toBe(5);
      const live = () => gateway?.gateway.ctx.alerts.live(companyId) ?? Promise.resolve([]);
      await expect.poll(async () => (await live()).length, { timeout: 10_000 }).toBe(1);
      const [alert] = await live();
      expect(alert).toMatchObject({ condition: "proof_failures", resourceId: connection.id, count: 5 });

      // The endpoint refused the notice: it is owed in the database, tried once.
      const owed = async () =>
        (await gateway?.gateway.ctx.alerts.dueNotices(Number.MAX_SAFE_INTEGER, 100))?.filter(
          (n) => n.alertId === alert?.id,
        ) ?? [];
      await expect.poll(async () => (await owed())[0]?.attempts, { timeout: 10_000 }).toBe(1);
      await gateway.close();
      expect(posted.map((p) => p.status)).toEqual([500]);

      // The next gateway sends it once the endpoint takes it: the same event, signed.
      healthy = true;
      gateway = await startTestGateway({}, options);
      await expect.poll(() => posted.filter((p) => p.status === 200).length, { timeout: 15_000 }).toBe(1);
      const [refused, sent] = posted;
      if (!refused || !sent) throw new Error("two requests expected");
      expectSigned(sent);
      const event = (p: Posted) => JSON.parse(p.raw) as { id: string; event: string; data: { id: string } };
      expect(event(sent)).toMatchObject({ id: event(refused).id, event: "alert.opened", data: { id: alert?.id } });
      await expect.poll(async () => (await owed()).length, { timeout: 10_000 }).toBe(0);
    } finally {
      await gateway?.close();
    }
  });
});
