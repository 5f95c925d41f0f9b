import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewAlert } from "../../../src/gateway/storage/alerts/index.js";
import { BACKENDS, id, newCompany, type Opened } from "./backends.js";

const T0 = "2026-03-01T10:00:00.000Z";
const T1 = "2026-03-01T10:05:00.000Z";

/**
 * The alerts store's contract (docs/alerts.md; D-342, D-275): one live alert per condition and resource whoever opens
 * it, notices claimed once, resolution kept as history, the owner's list, acknowledgement, mute and settings — the
 * same on SQLite and PostgreSQL, two connections standing for two gateway processes.
 */
describe.each(BACKENDS)("alerts store on $name", (backend) => {
  describe.skipIf(backend.skip)("contract", () => {
    const open = backend.use();
    let gateway: Opened;
    let other: Opened;
    beforeAll(() => {
      gateway = open();
      other = open();
    });
    afterAll(async () => {
      await gateway?.close();
      await other?.close();
    });

    const alertRow = (companyId: string, change: Partial<NewAlert> = {}): NewAlert => ({
      id: id("alr"),
      companyId,
      condition: "credential_paused",
      resourceType: "credential",
      resourceId: "cred_1",
      severity: "critical",
      status: "open",
      count: 1,
      message: "paused",
      link: "/console/credentials",
      openedAt: T0,
      lastSeenAt: T0,
      updatedAt: T0,
      ...change,
    });

    it("opens one live alert per condition and resource: a second opening, from any process, is refused", async () => {
      const company = await newCompany(gateway);
      expect(await gateway.alerts.open(alertRow(company.id))).toBe(true);
      expect(await other.alerts.open(alertRow(company.id))).toBe(false);
      // Another resource, or another condition, is another alert (positive control).
      expect(await other.alerts.open(alertRow(company.id, { resourceId: "cred_2" }))).toBe(true);
      expect((await gateway.alerts.live(company.id)).map((a) => a.resourceId).sort()).toEqual(["cred_1", "cred_2"]);
    });

    it("a resolved alert stays as history and the condition may open a new one", async () => {
      const company = await newCompany(gateway);
      const first = alertRow(company.id);
      await gateway.alerts.open(first);
      expect(await gateway.alerts.resolve(first.id, T1)).toBe(true);
      expect(await other.alerts.resolve(first.id, T1)).toBe(false);
      expect(await gateway.alerts.live(company.id)).toEqual([]);
      expect(await gateway.alerts.open(alertRow(company.id))).toBe(true);
      const all = await gateway.alerts.list(company.id, { limit: 10 });
      expect(all.map((a) => a.status).sort()).toEqual(["open", "resolved"]);
      expect((await gateway.alerts.list(company.id, { status: "resolved", limit: 10 }))[0]).toMatchObject({
        id: first.id,
        resolvedAt: T1,
      });
    });

    it("a notice is claimed by one process only, and again only from the value it read", async () => {
      const company = await newCompany(gateway);
      const row = alertRow(company.id);
      await gateway.alerts.open(row);
      const claims = await Promise.all([
        gateway.alerts.claimNotice(row.id, null, T0),
        other.alerts.claimNotice(row.id, null, T0),
      ]);
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await gateway.alerts.claimNotice(row.id, null, T1)).toBe(false);
      expect(await gateway.alerts.claimNotice(row.id, T0, T1)).toBe(true);
    });

    it("owes a resolved notice only for an alert notified open, once", async () => {
      const company = await newCompany(gateway);
      const notified = alertRow(company.id);
      const silent = alertRow(company.id, { resourceId: "cred_2" });
      await gateway.alerts.open(notified);
      await gateway.alerts.open(silent);
      await gateway.alerts.claimNotice(notified.id, null, T0);
      await gateway.alerts.resolve(notified.id, T1);
      await gateway.alerts.resolve(silent.id, T1);
      expect((await gateway.alerts.resolvedNoticesOwed(company.id)).map((a) => a.id)).toEqual([notified.id]);
      expect(await other.alerts.claimResolvedNotice(notified.id, T1)).toBe(true);
      expect(await gateway.alerts.claimResolvedNotice(notified.id, T1)).toBe(false);
      expect(await gateway.alerts.resolvedNoticesOwed(company.id)).toEqual([]);
    });

    it("acknowledges and mutes a company's own alert only; another company's is not found", async () => {
      const company = await newCompany(gateway);
      const rival = await newCompany(gateway);
      const row = alertRow(company.id);
      await gateway.alerts.open(row);
      expect(await gateway.alerts.acknowledge(row.id, rival.id, T1)).toBeUndefined();
      expect(await gateway.alerts.acknowledge(row.id, company.id, T1)).toMatchObject({
        status: "acknowledged",
        acknowledgedAt: T1,
      });
      expect(await gateway.alerts.mute(row.id, company.id, "2026-03-02T00:00:00.000Z", T1)).toMatchObject({
        mutedUntil: "2026-03-02T00:00:00.000Z",
      });
      // Acknowledged is still live: the condition cannot open a second alert meanwhile.
      expect(await gateway.alerts.open(alertRow(company.id))).toBe(false);
    });

    it("keeps a count and message the evaluator finds again, never on a resolved alert", async () => {
      const company = await newCompany(gateway);
      const row = alertRow(company.id);
      await gateway.alerts.open(row);
      await gateway.alerts.seen(row.id, { count: 7, message: "seven", link: "/console", lastSeenAt: T1 });
      expect(await gateway.alerts.getOfCompany(row.id, company.id)).toMatchObject({ count: 7, lastSeenAt: T1 });
      await gateway.alerts.resolve(row.id, T1);
      await gateway.alerts.seen(row.id, { count: 9, message: "nine", link: "/console", lastSeenAt: T1 });
      expect((await gateway.alerts.getOfCompany(row.id, company.id))?.count).toBe(7);
    });

    it("stores a company's settings whole and replaces them", async () => {
      const company = await newCompany(gateway);
      expect(await gateway.alerts.settingsOf(company.id)).toBeUndefined();
      const settings = {
        companyId: company.id,
        thresholds: { proof_failures: { count: 3, enabled: true } },
        routes: { warning: ["slack"] },
        channels: { email: { to: ["ops@example.com"] } },
        sealedSecrets: null,
        renotifyMinutes: 30,
        updatedAt: T0,
      };
      await gateway.alerts.saveSettings(settings);
      expect(await other.alerts.settingsOf(company.id)).toEqual(settings);
      await other.alerts.saveSettings({ ...settings, renotifyMinutes: 5, routes: {}, updatedAt: T1 });
      expect(await gateway.alerts.settingsOf(company.id)).toMatchObject({
        renotifyMinutes: 5,
        routes: {},
        updatedAt: T1,
      });
    });

    it("D-347: a claim writes the notices it owes in its transaction; a try takes one, and ends it under its claim", async () => {
      const company = await newCompany(gateway);
      const row = alertRow(company.id);
      await gateway.alerts.open(row);
      const owed = (channel: "webhook" | "email", nextAttemptAt: number) => ({
        id: id("ant"),
        companyId: company.id,
        alertId: row.id,
        event: "alert.opened" as const,
        eventId: "evt_1",
        reminder: false,
        channel,
        attempts: 0,
        nextAttemptAt,
        lastError: null,
        createdAt: T0,
      });
      const webhook = owed("webhook", 1_000);
      const email = owed("email", 1_000);
      expect(await gateway.alerts.claimNotice(row.id, null, T0, [webhook, email])).toBe(true);
      // A claim that loses writes nothing.
      expect(await other.alerts.claimNotice(row.id, null, T0, [owed("webhook", 1_000)])).toBe(false);
      expect((await other.alerts.dueNotices(999, 10)).filter((n) => n.alertId === row.id)).toEqual([]);
      const due = (await other.alerts.dueNotices(1_000, 100)).filter((n) => n.alertId === row.id);
      expect(due.map((n) => n.id).sort()).toEqual([webhook.id, email.id].sort());
      expect(due.find((n) => n.id === webhook.id)).toEqual(webhook);
      // Of two processes, one takes a try.
      const takes = await Promise.all([
        gateway.alerts.takeNotice(webhook.id, 1_000, 61_000),
        other.alerts.takeNotice(webhook.id, 1_000, 62_000),
      ]);
      expect(takes.filter(Boolean)).toHaveLength(1);
      const leaseUntil = takes[0] ? 61_000 : 62_000;
      // An end under another claim writes nothing; under its own, the failure and the next try.
      await gateway.alerts.endNotice(webhook.id, 5, { sent: true });
      await gateway.alerts.endNotice(webhook.id, leaseUntil, {
        sent: false,
        attempts: 1,
        nextAttemptAt: 70_000,
        error: "HTTP 500",
      });
      expect((await other.alerts.dueNotices(70_000, 100)).find((n) => n.id === webhook.id)).toMatchObject({
        attempts: 1,
        nextAttemptAt: 70_000,
        lastError: "HTTP 500",
      });
      expect(await other.alerts.takeNotice(webhook.id, 70_000, 130_000)).toBe(true);
      await other.alerts.endNotice(webhook.id, 130_000, { sent: true });
      expect(await gateway.alerts.takeNotice(email.id, 1_000, 61_000)).toBe(true);
      await gateway.alerts.endNotice(email.id, 61_000, { sent: false, attempts: 4, nextAttemptAt: null, error: "x" });
      expect(
        (await gateway.alerts.dueNotices(Number.MAX_SAFE_INTEGER, 1_000)).filter((n) => n.alertId === row.id),
      ).toEqual([]);
    });
  });
});
