import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DriverName, lead, type Rig, type RigCompany, startRig, until } from "../../helpers/forwarding.js";
import { postJson } from "../../helpers/gateway.js";
import { redisForTests } from "../../helpers/redis.js";
import { attemptRows, companySubmissions, submissionRow, submissionRows } from "../../helpers/store-reads.js";
import { TEST_STORE } from "../../helpers/test-store.js";

/**
 * One queue interface, two drivers with identical behaviour, one suite run against both — the embedded
 * driver (SQLite, one process) and the BullMQ driver (Redis; here the gateway serves the API only and a separate
 * worker forwards, so every case also crosses the API/worker boundary). The sandbox is the referee.
 */
const redis = await redisForTests();
const drivers: { driver: DriverName; skip: boolean }[] = [
  { driver: "embedded", skip: false },
  { driver: "bullmq", skip: !redis },
];

for (const { driver, skip } of drivers) describe.skipIf(skip)(`forwarding driver: ${driver}`, () => suite(driver));

/** What the sandbox admitted and refused (429) for a company's first credential. */
function refereeCount(rig: Rig, company: RigCompany) {
  const keyId = company.credentials[0]?.upstreamKey.split(".")[0];
  const tally = rig.sandbox.admin.stats().traffic.keys.find((k) => k.keyId === keyId);
  return { admitted: tally?.admitted, limited: tally?.limited };
}

/** The requests the gateway made for these submissions (a send that timed out and was retried counts twice). */
async function sentBy(rig: Rig, rows: { id: string }[]): Promise<number> {
  return (
    await attemptRows(
      rig.gateway,
      rows.map((r) => r.id),
    )
  ).length;
}

/** The submission ids of intake's answers (202 bodies, or the header of a sync answer). */
async function submissionIds(answers: Response[]): Promise<string[]> {
  return Promise.all(
    answers.map(
      async (res) =>
        res.headers.get("x-submission-id") ?? ((await res.clone().json()) as { submissionId: string }).submissionId,
    ),
  );
}

function suite(driver: DriverName) {
  describe("§8 limits kept exactly against the sandbox (per-second windows)", () => {
    let rig: Rig;
    beforeAll(async () => {
      rig = await startRig({ perKey: 5, perCompany: 8, egress: 12, windowMs: 1_000, driver });
    });
    afterAll(() => rig.close());

    // First in its rig, so that no earlier case's sends still fill the egress's window.
    it("sends a burst within N at once, paces what goes beyond it W/N apart, and never exceeds N in a window", async () => {
      const solo = await rig.addCompany("Solo", 1);
      const posts = Array.from({ length: 8 }, () =>
        postJson(`${rig.url}/api/inbound/leads`, lead(), { "x-api-key": solo.vendorKeys[0] ?? "" }),
      );
      const answers = await Promise.all(posts);
      expect(answers.map((r) => r.status)).toEqual(Array(8).fill(202));
      const ids = await submissionIds(answers);
      const rows = await until(async () => {
        const done = await submissionRows(rig.gateway, ids);
        return done.length === 8 && done.every((r) => r.status === "forwarded") ? done : undefined;
      });
      const sends = rows
        .map((r) => ({ sentAt: r.firstSentAt ?? 0, waited: (r.firstSentAt ?? 0) - Date.parse(r.createdAt) }))
        .sort((a, b) => a.sentAt - b.sentAt);
      // 5 per 1,000 ms. The first five go as they are committed (paced 200 ms apart, the fifth would wait 800 ms). With
      // BullMQ the time is taken by the worker that picks the send job up, a queue hop later: tens of ms, but seconds
      // on a loaded machine while the eight intakes keep this process's event loop busy; the BullMQ driver's decisive
      // case is the one at 60 a minute below, where pacing would make the thirtieth wait 26 s.
      // On PostgreSQL each intake commit, claim and outcome is a round trip to a server process competing for the same
      // cores: 470-630 ms measured on a loaded machine; the decisive case is then the one at 60 a minute too.
      const prompt = driver === "bullmq" || TEST_STORE === "postgres" ? 2_000 : 400;
      for (const { waited } of sends.slice(0, 5)) expect(waited).toBeLessThan(prompt);
      // The sixth waits for the first one's slot to have closed a full window (it was answered after it was sent), and
      // the seventh and eighth follow one per W/N: bounds that hold whatever the timers' and the queue's lateness.
      const first = sends[0]?.sentAt ?? 0;
      for (let i = 5; i < 8; i++) expect((sends[i]?.sentAt ?? 0) - first).toBeGreaterThanOrEqual(1_000 + (i - 5) * 200);
      // Exact by the referee's own count: every request the gateway made admitted, none refused.
      expect(refereeCount(rig, solo)).toEqual({ admitted: await sentBy(rig, rows), limited: 0 });
    });

    it("forwards a burst over several credentials and companies without a single 429 at the sandbox", async () => {
      const big = await rig.addCompany("Big", 3);
      const small = await rig.addCompany("Small", 1);
      const posts = [];
      for (let i = 0; i < 30; i++)
        posts.push(postJson(`${rig.url}/api/inbound/leads`, lead(), { "x-api-key": big.vendorKeys[i % 3] ?? "" }));
      for (let i = 0; i < 6; i++)
        posts.push(postJson(`${rig.url}/api/inbound/leads`, lead(), { "x-api-key": small.vendorKeys[0] ?? "" }));
      const answers = await Promise.all(posts);
      expect(answers.map((r) => r.status)).toEqual(Array(36).fill(202));
      const ids = await submissionIds(answers);
      await until(
        async () => (await submissionRows(rig.gateway, ids)).filter((r) => r.status === "forwarded").length === 36,
        20_000,
      );
      const stats = rig.sandbox.admin.stats();
      expect(stats.traffic.totals.limited).toBe(0);
      expect(stats.traffic.totals.admitted).toBeGreaterThanOrEqual(36);
    });

    it("serves an idle company at the next egress slot while others keep the egress saturated", async () => {
      const a = await rig.addCompany("Busy A", 3);
      const b = await rig.addCompany("Busy B", 3);
      const idle = await rig.addCompany("Idle", 1);
      const posts = [];
      for (let i = 0; i < 24; i++) {
        posts.push(postJson(`${rig.url}/api/inbound/leads`, lead(), { "x-api-key": a.vendorKeys[i % 3] ?? "" }));
        posts.push(postJson(`${rig.url}/api/inbound/leads`, lead(), { "x-api-key": b.vendorKeys[i % 3] ?? "" }));
      }
      const busyIds = await submissionIds(await Promise.all(posts));
      // The egress saturated: the busy companies could send 16 a second, it takes 12; a window's worth has gone.
      await until(async () => (await submissionRows(rig.gateway, busyIds)).filter((r) => r.firstSentAt).length >= 12);
      const res = await postJson(`${rig.url}/api/inbound/leads`, lead(), { "x-api-key": idle.vendorKeys[0] ?? "" });
      const { submissionId } = (await res.json()) as { submissionId: string };
      const row = await until(async () => {
        const r = await submissionRow(rig.gateway, submissionId);
        return r?.firstSentAt ? r : undefined;
      });
      const acceptedAt = Date.parse(row.createdAt);
      const sentAt = row.firstSentAt ?? 0;
      const busy = await submissionRows(rig.gateway, busyIds);
      // Positive control: a backlog of the busy companies was waiting when the idle company's lead was accepted.
      const waiting = busy.filter((r) => r.firstSentAt === null || r.firstSentAt > acceptedAt);
      expect(waiting.length).toBeGreaterThanOrEqual(10);
      // Max-min fair (§8): it went ahead of that backlog, at the next paced egress slot (one already being taken may
      // go first) — not behind the others' queue. How long it waited is bench/drain.ts's small_first_wait_ms.
      const ahead = waiting.filter((r) => r.firstSentAt !== null && r.firstSentAt < sentAt);
      expect(ahead.length).toBeLessThanOrEqual(2);
    });
  });

  describe("§8 a burst on an idle credential at the spec's limits (60 a minute) gets sync answers", () => {
    let rig: Rig;
    beforeAll(async () => {
      rig = await startRig({ perKey: 60, perCompany: 300, egress: 600, windowMs: 60_000, driver });
    });
    afterAll(() => rig.close());

    it("sends thirty concurrent Prefer: wait requests at once and answers each with the platform's own answer", async () => {
      const company = await rig.addCompany("Sync burst", 1);
      // On PostgreSQL the thirty outcomes commit one at a time (immediate transactions, D-249): 25-400 ms each measured
      // on a loaded machine, so the last is answered up to about 8 s after its accept; pacing would take 26 s.
      const wait = TEST_STORE === "postgres" ? "wait=15" : "wait=5";
      const posts = Array.from({ length: 30 }, () =>
        postJson(`${rig.url}/api/inbound/leads`, lead(), {
          "x-api-key": company.vendorKeys[0] ?? "",
          prefer: wait,
        }),
      );
      const answers = await Promise.all(
        (await Promise.all(posts)).map(async (res) => ({
          status: res.status,
          applied: res.headers.get("preference-applied"),
          body: (await res.json()) as Record<string, unknown>,
        })),
      );
      // The platform's own answer: 201 created, or 200 merged when a send outlived the rig's 2 s call timeout on a
      // loaded machine and its retry found the lead the first one had created (§4.2 rule 1).
      for (const answer of answers) {
        expect(answer).toMatchObject({ applied: wait, body: { leadId: expect.stringMatching(/^lead_/) } });
        expect([
          [201, "created"],
          [200, "merged"],
        ]).toContainEqual([answer.status, answer.body.status]);
      }
      // Each went as it was committed (paced 0.9 s apart, the thirtieth would have waited about 26 s). The bound leaves
      // room for a loaded machine: thirty intakes at once keep one process's event loop busy, and with BullMQ the
      // worker in this process picks its jobs up between them.
      const rows = await companySubmissions(rig.gateway, company.gatewayCompanyId);
      expect(rows).toHaveLength(30);
      const sentWithin = TEST_STORE === "postgres" ? 4_000 : 2_000;
      for (const row of rows) expect((row.firstSentAt ?? 0) - Date.parse(row.createdAt)).toBeLessThan(sentWithin);
      expect(refereeCount(rig, company)).toEqual({ admitted: await sentBy(rig, rows), limited: 0 });
    });
  });

  describe("§7 retries and results", () => {
    let rig: Rig;
    beforeAll(async () => {
      rig = await startRig({ perKey: 50, perCompany: 100, egress: 200, windowMs: 1_000, driver });
    });
    afterAll(() => rig.close());

    const attemptsOf = (rig: Rig, id: string) => attemptRows(rig.gateway, [id]);
    // Up to 30 s: on a machine loaded enough for a database ping to time out, an outage is declared, and a claim whose
    // verdict was lost meanwhile is released only after the outage's lease grace (15 s, D-334). A row that never
    // settles is named with the state it was left in.
    const settled = async (rig: Rig, id: string) => {
      try {
        return await until(async () => {
          const row = await submissionRow(rig.gateway, id);
          return row && (row.status === "forwarded" || row.status === "failed") ? row : undefined;
        }, 30_000);
      } catch (error) {
        const row = await submissionRow(rig.gateway, id);
        const { status, attempts, waitingReason, leaseUntil, nextAttemptAt } = (row ?? {}) as Record<string, unknown>;
        const left = JSON.stringify({ status, attempts, waitingReason, leaseUntil, nextAttemptAt });
        throw new Error(`${id} did not settle: ${left}`, { cause: error });
      }
    };
    const submit = async (key: string, body: unknown = lead(), path = "leads") =>
      (
        (await (await postJson(`${rig.url}/api/inbound/${path}`, body, { "x-api-key": key })).json()) as {
          submissionId: string;
        }
      ).submissionId;

    it("stores the upstream result: created with the platform's leadId", async () => {
      const company = await rig.addCompany("Results", 1);
      const row = await settled(rig, await submit(company.vendorKeys[0] ?? ""));
      expect(row).toMatchObject({ status: "forwarded", upstreamStatus: 201, attempts: 1 });
      expect(row.result).toMatchObject({ status: "created", leadId: expect.stringMatching(/^lead_/) });
      const [attempt] = await attemptsOf(rig, row.id);
      expect(attempt).toMatchObject({ status: 201, counted: true, upstreamApiVersion: "2026-08-26" });
      expect(attempt?.upstreamRequestId).toBeTruthy();
    });

    it("retries 5xx with backoff and the same idempotency key, then forwards", async () => {
      const company = await rig.addCompany("Flaky", 1);
      const { faultSpecSchema } = await import("../../../src/sandbox/faults/fault-spec.js");
      rig.sandbox.admin.faults.add(
        faultSpecSchema.parse({ route: "POST /api/inbound/appointments", errorRate: 1, count: 2 }),
      );
      const leadRow = await settled(rig, await submit(company.vendorKeys[0] ?? ""));
      const leadId = (leadRow.result as { leadId: string }).leadId;
      const booking = {
        leadId,
        startsAt: "2026-12-01T15:00:00Z",
        endsAt: "2026-12-01T16:00:00Z",
        idempotencyKey: "retry-0001",
      };
      const row = await settled(rig, await submit(company.vendorKeys[0] ?? "", booking, "appointments"));
      expect(row).toMatchObject({ status: "forwarded", attempts: 3, upstreamStatus: 201 });
      const attempts = await attemptsOf(rig, row.id);
      expect(attempts.map((a) => a.status)).toEqual([503, 503, 201]);
      expect(new Set(attempts.map((a) => a.idempotencyKey)).size).toBe(1);
      rig.sandbox.admin.faults.clear();
    });

    it("pauses the credential on a 429 for retry-after without consuming an attempt", async () => {
      const company = await rig.addCompany("Limited", 1);
      const { faultSpecSchema } = await import("../../../src/sandbox/faults/fault-spec.js");
      rig.sandbox.admin.faults.add(
        faultSpecSchema.parse({ route: "POST /api/inbound/leads", rateLimitRate: 1, retryAfterSeconds: 1, count: 1 }),
      );
      const started = Date.now();
      const row = await settled(rig, await submit(company.vendorKeys[0] ?? ""));
      expect(row).toMatchObject({ status: "forwarded", attempts: 1 });
      const attempts = await attemptsOf(rig, row.id);
      expect(attempts.map((a) => [a.status, a.counted])).toEqual([
        [429, false],
        [201, true],
      ]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
      rig.sandbox.admin.faults.clear();
    });

    it("dead-letters another 4xx at once with the upstream's message", async () => {
      const company = await rig.addCompany("Wrong lead", 1);
      const booking = {
        leadId: "lead_doesnotexist",
        startsAt: "2026-12-01T15:00:00Z",
        endsAt: "2026-12-01T16:00:00Z",
        idempotencyKey: "dead-0001",
      };
      const row = await settled(rig, await submit(company.vendorKeys[0] ?? "", booking, "appointments"));
      expect(row).toMatchObject({ status: "failed", attempts: 1, upstreamStatus: 404 });
      expect(row.lastError).toMatch(/^upstream 404/);
    });

    it("gives up after the attempt budget and dead-letters with the last error", async () => {
      const company = await rig.addCompany("Down", 1);
      const { faultSpecSchema } = await import("../../../src/sandbox/faults/fault-spec.js");
      rig.sandbox.admin.faults.add(
        faultSpecSchema.parse({ route: "POST /api/inbound/leads", errorRate: 1, errorStatus: 500 }),
      );
      const row = await settled(rig, await submit(company.vendorKeys[0] ?? ""));
      expect(row).toMatchObject({ status: "failed", attempts: 4, upstreamStatus: 500 });
      rig.sandbox.admin.faults.clear();
    });

    it("pauses a rejected credential's submissions as waiting, and resumes them when it is rotated", async () => {
      const company = await rig.addCompany("Revoked", 1);
      const credential = company.credentials[0];
      if (!credential) throw new Error("no credential");
      rig.sandbox.admin.revokeKey(credential.upstreamKey.split(".")[0] ?? "");
      const ids = [await submit(company.vendorKeys[0] ?? ""), await submit(company.vendorKeys[0] ?? "")];
      await until(async () => (await submissionRows(rig.gateway, ids)).every((row) => row.status === "waiting"));
      const waiting = await submissionRow(rig.gateway, ids[0] ?? "");
      expect(waiting?.waitingReason).toMatch(/^credential paused: upstream 401/);
      expect(waiting?.attempts).toBe(0);
      const fresh = rig.sandbox.admin.createKey({
        companyId: company.sandboxCompanyId,
        kind: "general",
        personId: company.sandboxPersonId,
      });
      const { rotateUpstreamCredential } = await import("../../../src/gateway/credentials/upstream-credentials.js");
      await rotateUpstreamCredential({
        ctx: rig.gateway.ctx,
        companyId: company.gatewayCompanyId,
        credentialId: credential.id,
        value: fresh.key,
      });
      for (const id of ids) expect((await settled(rig, id)).status).toBe("forwarded");
    });

    // Only the BullMQ driver reconciles on a timer: in one process a notice cannot be lost, and the verdict pausing a
    // credential is applied before intake runs again.
    it.skipIf(driver !== "bullmq")(
      "§7 parks a submission left queued on a paused credential (accepted as the pause landed, or its notice lost)",
      async () => {
        const company = await rig.addCompany("Lost notice", 1);
        const credential = company.credentials[0];
        if (!credential) throw new Error("no credential");
        rig.sandbox.admin.revokeKey(credential.upstreamKey.split(".")[0] ?? "");
        const statusOf = (id: string) => submissionRow(rig.gateway, id);
        const first = await submit(company.vendorKeys[0] ?? "");
        await until(async () => (await statusOf(first))?.status === "waiting");
        // What the dispatcher never hears of: a row committed as queued after the credential was paused.
        const second = await submit(company.vendorKeys[0] ?? "");
        await until(async () => (await statusOf(second))?.status === "waiting");
        await rig.gateway.ctx.submissions.requeue(second, { status: "queued", waitingReason: null });
        const parked = await until(async () => {
          const row = await statusOf(second);
          return row?.status === "waiting" ? row : undefined;
        });
        expect(parked.waitingReason).toMatch(/^credential paused: upstream 401/);
        expect(parked.attempts).toBe(0);
      },
    );

    it("holds an appointment naming a lead submission until the lead is forwarded, then sends the real leadId", async () => {
      const company = await rig.addCompany("Chained", 1);
      const key = company.vendorKeys[0] ?? "";
      const leadSubmission = await submit(key);
      const booking = {
        leadId: leadSubmission,
        startsAt: "2026-12-01T15:00:00Z",
        endsAt: "2026-12-01T16:00:00Z",
        idempotencyKey: "chain-0001",
      };
      const row = await settled(rig, await submit(key, booking, "appointments"));
      expect(row.status).toBe("forwarded");
      const leadRow = await settled(rig, leadSubmission);
      const appointment = rig.sandbox.admin
        .stats()
        .appointments.find((a) => a.appointmentId === (row.result as { appointmentId: string }).appointmentId);
      expect(appointment?.leadId).toBe((leadRow.result as { leadId: string }).leadId);
    });

    it("answers a Prefer: wait request with the upstream's own status and body", async () => {
      const company = await rig.addCompany("Sync", 1);
      const res = await postJson(`${rig.url}/api/inbound/leads`, lead(), {
        "x-api-key": company.vendorKeys[0] ?? "",
        prefer: "wait=5",
      });
      expect(res.status).toBe(201);
      expect(await res.json()).toMatchObject({ status: "created", leadId: expect.stringMatching(/^lead_/) });
      expect(res.headers.get("x-submission-id")).toMatch(/^sub_/);
      expect(res.headers.get("preference-applied")).toBe("wait=5");
    });

    it("forwards a submission once however often it is enqueued again (dedupe by submission id)", async () => {
      const company = await rig.addCompany("Dedupe", 1);
      const { ctx } = rig.gateway;
      const id = await submit(company.vendorKeys[0] ?? "");
      const row = await submissionRow(rig.gateway, id);
      if (!row) throw new Error("not committed");
      // What a re-enqueue after a crash between commit and enqueue, or an outbox pass, does: tell forwarding again.
      for (let i = 0; i < 20; i++) ctx.running.forwarding?.notify(row);
      const done = await settled(rig, id);
      for (let i = 0; i < 5; i++) ctx.running.forwarding?.notify({ ...done, status: "queued" });
      // Positive control: a submission of the same credential, told to forwarding after those notices (they went
      // through its queue ahead of it), is forwarded, and nothing is left queued.
      const control = await submit(company.vendorKeys[0] ?? "");
      expect((await settled(rig, control)).status).toBe("forwarded");
      await until(() => rig.backlog() === 0, 5_000);
      expect((await attemptsOf(rig, id)).map((a) => a.status)).toEqual([201]);
      // The referee's count: two requests for this credential, the submission's and the control's.
      expect(refereeCount(rig, company)).toEqual({ admitted: 2, limited: 0 });
    });

    it("answers 202 when the upstream's answer does not come within the wait", async () => {
      const company = await rig.addCompany("Slow", 1);
      const { faultSpecSchema } = await import("../../../src/sandbox/faults/fault-spec.js");
      rig.sandbox.admin.faults.add(
        faultSpecSchema.parse({ route: "POST /api/inbound/leads", latencyMs: 1_500, count: 1 }),
      );
      const res = await postJson(`${rig.url}/api/inbound/leads`, lead(), {
        "x-api-key": company.vendorKeys[0] ?? "",
        prefer: "wait=1",
      });
      expect(res.status).toBe(202);
      rig.sandbox.admin.faults.clear();
    });

    // A worker process enqueues the webhook deliveries of what it settled; the elected API process sends them.
    it.skipIf(driver !== "bullmq")(
      "wakes the API process's webhook dispatcher for deliveries a worker enqueued, not at its next poll",
      async () => {
        const dispatcher = await until(() => rig.gateway.webhooks.dispatcher, 5_000);
        const woken: [string, number][] = [];
        const notify = dispatcher.notify.bind(dispatcher);
        dispatcher.notify = (subscriptionId, dueAt) => {
          woken.push([subscriptionId, dueAt]);
          notify(subscriptionId, dueAt);
        };
        try {
          const worker = rig.workers[0];
          if (!worker) throw new Error("no worker");
          const dueAt = Date.now();
          worker.ctx.running.webhookDue("whsub_from_worker", dueAt);
          await until(() => woken.length > 0, 2_000);
          expect(woken).toEqual([["whsub_from_worker", dueAt]]);
        } finally {
          dispatcher.notify = notify;
        }
      },
    );
  });
}
