import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrationsFolder } from "../../../src/db/migrate.js";
import { openSqlite } from "../../../src/db/sqlite.js";
import { onSubmissionSettled } from "../../../src/gateway/webhooks/index.js";
import { TEST_STORE } from "../../helpers/test-store.js";
import {
  bearer,
  type Company,
  columnsOf,
  deliveriesOf,
  ownerApi,
  type Receiver,
  rowCount,
  seedCompany,
  settle,
  settledSubmission,
  startGateway,
  startReceiver,
  type WebhookGateway,
  waitFor,
} from "./support.js";

let t: WebhookGateway;
let acme: Company;
let api: ReturnType<typeof ownerApi>;
const receivers: Receiver[] = [];

beforeAll(async () => {
  t = await startGateway();
  acme = await seedCompany(t.gateway, "Acme");
  api = ownerApi(t.url, await bearer(t.url, acme.email));
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await t.close();
});

describe("§6 webhooks: an event's envelope is stored once, whatever its fan-out", () => {
  it("keeps one webhook_events row for an event sent to three subscriptions, and sends its exact bytes to each", async () => {
    const key = await acme.issueKey({ partnerType: "lead_source" });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const endpoint = await startReceiver();
      receivers.push(endpoint);
      const created = await api("POST", "/subscriptions", {
        vendorKeyId: key.id,
        url: endpoint.url,
        events: ["submission.forwarded"],
      });
      expect(created.status).toBe(201);
      ids.push(String(created.body.id));
    }
    const row = settledSubmission(acme.company.id, key.id, {
      kind: "lead",
      status: "forwarded",
      result: { status: "created", leadId: "lead_once" },
    });
    await settle(t.gateway, row);
    await waitFor(() => receivers.every((r) => r.received.length === 1), 5_000, "three deliveries");

    const deliveries = (await Promise.all(ids.map((id) => deliveriesOf(t.gateway, id)))).flat();
    expect(deliveries).toHaveLength(3);
    const eventIds = new Set(deliveries.map((d) => d.eventId));
    expect(eventIds.size).toBe(1);
    const [eventId] = [...eventIds];
    // One row per event id (its primary key): the envelope stored once.
    const envelope = await t.gateway.ctx.webhooks.deliveries.envelopeOf(eventId ?? "");
    expect(envelope).toEqual(expect.any(String));
    // The deliveries carry no copy of it.
    const columns = await columnsOf(t.gateway, "webhook_deliveries");
    expect(columns).toContain("event_id");
    expect(columns).not.toContain("envelope");
    for (const r of receivers) expect(r.received[0]?.raw.toString("utf8")).toBe(envelope);

    // The owner still sees the envelope of each delivery.
    const detail = await api("GET", `/deliveries/${deliveries[0]?.id}`);
    expect(detail.status).toBe(200);
    expect((detail.body.envelope as { id: string }).id).toBe(eventId);
    expect((detail.body.envelope as { data: { submissionId: string } }).data.submissionId).toBe(row.id);
  });

  it("stores no event row when a repeated hook call enqueues nothing", async () => {
    const key = await acme.issueKey({ partnerType: "lead_source" });
    const endpoint = await startReceiver();
    receivers.push(endpoint);
    await api("POST", "/subscriptions", { vendorKeyId: key.id, url: endpoint.url, events: ["submission.forwarded"] });
    const row = settledSubmission(acme.company.id, key.id, {
      kind: "lead",
      status: "forwarded",
      result: { status: "created", leadId: "lead_twice" },
    });
    const count = () => rowCount(t.gateway, "webhook_events");
    const before = await count();
    await settle(t.gateway, row);
    const after = await count();
    expect(after).toBe(before + 1); // positive control: the first call stores its event
    await onSubmissionSettled(t.gateway.ctx, row); // forwarding calling the hook again for the same submission
    expect(await count()).toBe(after);
  });
});

describe("§6 webhooks: the owner's delivery log reads one status at a time and merges", () => {
  it("pages through every status newest first, and filters by one", async () => {
    const key = await acme.issueKey({ partnerType: "lead_source" });
    const endpoint = await startReceiver();
    receivers.push(endpoint);
    const created = await api("POST", "/subscriptions", {
      vendorKeyId: key.id,
      url: endpoint.url,
      events: ["submission.forwarded"],
    });
    const subscriptionId = String(created.body.id);
    for (let i = 0; i < 5; i++) {
      await settle(
        t.gateway,
        settledSubmission(acme.company.id, key.id, {
          kind: "lead",
          status: "forwarded",
          result: { status: "created", leadId: `lead_log_${i}` },
        }),
      );
    }
    await waitFor(() => endpoint.received.length === 5, 5_000, "five deliveries");
    // Outcomes are committed after the answer arrives: the dead-lettering below must not be overwritten by one.
    await expect
      .poll(async () => (await t.gateway.ctx.webhooks.subscriptions.deliveryCounts(subscriptionId)).delivered, {
        timeout: 5_000,
        interval: 20,
      })
      .toBe(5);
    const all = (await deliveriesOf(t.gateway, subscriptionId)).map((r) => r.id);
    // Two of them in the dead letter, so the log spans two statuses.
    const failed = [all[1] ?? "", all[3] ?? ""];
    for (const id of failed) await t.gateway.ctx.webhooks.deliveries.update(id, { status: "failed" });

    const seen: string[] = [];
    let before: string | null = null;
    do {
      const page = await api(
        "GET",
        `/subscriptions/${subscriptionId}/deliveries?limit=2${before ? `&before=${before}` : ""}`,
      );
      seen.push(...(page.body.deliveries as Array<{ id: string }>).map((d) => d.id));
      before = page.body.nextBefore as string | null;
    } while (before !== null);
    expect(seen).toEqual(all);
    const dead = await api("GET", `/subscriptions/${subscriptionId}/deliveries?status=failed`);
    expect((dead.body.deliveries as Array<{ id: string }>).map((d) => d.id)).toEqual(failed);
  });
});

describe("migration 0004: envelopes of existing deliveries move to webhook_events", () => {
  // SQLite's migration history only: PostgreSQL's schema began with webhook_events (migrations/gateway-pg/0000), so
  // it has no deliveries with envelopes to move. The test opens a SQLite file of its own whatever the project.
  it.skipIf(TEST_STORE === "postgres")("copies one envelope per event from the deliveries written before it", () => {
    const dir = mkdtempSync(join(tmpdir(), "webhook-events-migration-"));
    try {
      // The migrations as they were before webhook_events (0000–0002), then every migration.
      const before = join(dir, "before");
      cpSync(migrationsFolder("gateway"), before, { recursive: true });
      const journalPath = join(before, "meta", "_journal.json");
      const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: Array<{ idx: number }> };
      journal.entries = journal.entries.filter((e) => e.idx <= 2);
      writeFileSync(journalPath, JSON.stringify(journal));

      const sqlite = openSqlite(join(dir, "gateway.db"));
      const db = drizzle(sqlite);
      migrate(db, { migrationsFolder: before });
      sqlite.pragma("foreign_keys = OFF");
      const insert = sqlite.prepare(
        `INSERT INTO webhook_deliveries (id, company_id, subscription_id, event_id, event, dedupe_key, envelope, status,
           next_attempt_at, created_at, created_at_ms) VALUES (?, 'cmp_1', ?, ?, 'submission.forwarded', ?, ?, 'delivered', 0, ?, 0)`,
      );
      const envelope = (id: string) => JSON.stringify({ id, event: "submission.forwarded" });
      insert.run("whd_1", "whs_a", "evt_1", "k1", envelope("evt_1"), "2026-01-01T00:00:00.000Z");
      insert.run("whd_2", "whs_b", "evt_1", "k1", envelope("evt_1"), "2026-01-01T00:00:00.000Z");
      insert.run("whd_3", "whs_a", "evt_2", "k2", envelope("evt_2"), "2026-01-02T00:00:00.000Z");
      sqlite.pragma("foreign_keys = ON");

      migrate(db, { migrationsFolder: migrationsFolder("gateway") });
      expect(
        sqlite.prepare("SELECT id, company_id, event, envelope, created_at FROM webhook_events ORDER BY id").all(),
      ).toEqual([
        {
          id: "evt_1",
          company_id: "cmp_1",
          event: "submission.forwarded",
          envelope: envelope("evt_1"),
          created_at: "2026-01-01T00:00:00.000Z",
        },
        {
          id: "evt_2",
          company_id: "cmp_1",
          event: "submission.forwarded",
          envelope: envelope("evt_2"),
          created_at: "2026-01-02T00:00:00.000Z",
        },
      ]);
      expect(sqlite.prepare("SELECT count(*) AS n FROM webhook_deliveries").get()).toEqual({ n: 3 });
      sqlite.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
