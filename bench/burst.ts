/**
 * The burst case of `npm run bench:drain` (docs/forwarding.md, "The limiter's policy"): thirty leads posted at once
 * over HTTP with `Prefer: wait=5` on an idle credential whose limit is 60 a minute (§8), and one lead of another idle
 * company posted once they are accepted, while they are forwarded; once with every other company idle (load=idle),
 * once while the drain's companies keep the egress saturated (load=saturated).
 *
 * Limits: the spec's per credential and per company (60 and 300 a minute), the egress at the drain's 100 a second, so
 * that the drain's companies (A–E with 16/2/2/2/2 credentials, A allowed 1,000 a minute by arrangement) saturate it
 * within seconds with a minute's worth of leads per credential (60 each, 1,440 in all: about 14.5 s of egress). The
 * burst comes 3 s into that backlog, once the egress is paced.
 *
 * Figures: burst_p95_ms = p95 over the thirty of accept commit → forwarded; upstream_rtt_p95_ms = p95 of send →
 * answer of their attempts (nothing injected); sync_answered = requests answered with the platform's own 201/200 and
 * its leadId; small_first_wait_ms = the other idle company's commit → send, against 2 × W/N_egress + 50 ms.
 * It reads the SQLite file directly, so it runs on the SQLite store only (`store=sqlite`).
 */

import { sqliteOf, sqlOf } from "../test/helpers/sqlite-of.js";
import { type Driver, poll, startBenchRig } from "./lib/forwarding-rig.js";

const MINUTE = 60_000;
const EGRESS = { limit: 100, windowMs: 1_000 };
const BURST = 30;
const BACKLOG_LAYOUT = [16, 2, 2, 2, 2];
const [SMALL, BURSTING, WARMUP] = [5, 6, 7];

export async function burstCase(options: {
  driver: Driver;
  load: "idle" | "saturated";
  redisUrl: string;
  workers: number;
}): Promise<void> {
  const { driver, load } = options;
  const rig = await startBenchRig({
    driver,
    limits: {
      perCredential: { limit: 60, windowMs: MINUTE },
      perCompany: { limit: 300, windowMs: MINUTE },
      egress: EGRESS,
      marginMs: 1,
    },
    upstream: { key: { limit: 60, windowMs: MINUTE }, owner: { limit: 1_000, windowMs: MINUTE }, ip: EGRESS },
    companies: [
      ...BACKLOG_LAYOUT.map((credentials, i) => ({
        name: `Company ${"ABCDE"[i]}`,
        credentials,
        ...(i === 0 ? { perCompany: 1_000 } : {}),
      })),
      { name: "Small", credentials: 1 },
      { name: "Bursting", credentials: 1 },
      { name: "Warm-up", credentials: 2 },
    ],
    redisUrl: options.redisUrl,
    workers: options.workers,
  });
  const post = (companyIndex: number, wait: boolean) =>
    fetch(`${rig.url}/api/inbound/leads`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": rig.companies[companyIndex]?.keys[0]?.secret ?? "",
        ...(wait ? { prefer: "wait=5" } : {}),
      },
      body: JSON.stringify(rig.lead()),
    });

  // Warm-up, as in the drain: another company's sync requests warm intake, forwarding and the answer's way back.
  await Promise.all(Array.from({ length: 20 }, () => post(WARMUP, true).then((res) => res.text())));
  await poll(async () => (await rig.settled()) >= 20);
  // Its sends leave the egress's window (1 s) before anything is measured.
  await new Promise((r) => setTimeout(r, 1_100));

  let backlog = 0;
  if (load === "saturated") {
    // A minute's worth per credential, interleaved across companies, in chunks that yield as HTTP requests would.
    const order: [number, number][] = [];
    for (const [c, credentials] of BACKLOG_LAYOUT.entries()) {
      for (let k = 0; k < credentials; k++) for (let i = 0; i < 60; i++) order.push([c, k]);
    }
    order.sort(() => Math.random() - 0.5);
    const accepted = [];
    for (let start = 0; start < order.length; start += 50) {
      for (const [c, k] of order.slice(start, start + 50)) accepted.push(rig.submit(c, k));
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(accepted);
    backlog = accepted.length;
    await new Promise((r) => setTimeout(r, 3_000));
  }

  const burstAt = Date.now();
  const burst = Array.from({ length: BURST }, () => post(BURSTING, true));
  // The other idle company's lead comes once the burst is accepted, while it is being forwarded: what it measures is
  // whether the burst left room for its first send, not thirty intakes at once in the same process.
  const burstingId = rig.companies[BURSTING]?.id ?? "";
  const accepted = sqliteOf(rig.gateway).sqlite.prepare("select count(*) n from submissions where company_id = ?");
  await poll(() => (accepted.get(burstingId) as { n: number }).n >= BURST, 1);
  const small = post(SMALL, false);
  const answers = await Promise.all(
    burst.map(async (res) => {
      const answer = await res;
      const body = (await answer.json()) as { leadId?: unknown; submissionId?: string };
      return { status: answer.status, leadId: body.leadId, id: answer.headers.get("x-submission-id") };
    }),
  );
  const smallId = ((await (await small).json()) as { submissionId: string }).submissionId;
  const ids = answers.map((a) => a.id ?? "");
  const db = sqlOf(rig.gateway);
  const settled = () =>
    db
      .selectFrom("submissions")
      .selectAll()
      .where("id", "in", [...ids, smallId])
      .execute();
  await poll(
    async () => (await settled()).filter((r) => r.status === "forwarded" || r.status === "failed").length === BURST + 1,
  );
  const burstDoneAt = Date.now();

  const rows = await settled();
  const burstRows = rows.filter((r) => r.id !== smallId);
  const smallRow = rows.find((r) => r.id === smallId);
  const attempts = await db.selectFrom("submissionAttempts").selectAll().where("submissionId", "in", ids).execute();
  const toForward = burstRows.map((r) => Date.parse(r.forwardedAt ?? "") - Date.parse(r.createdAt));
  const burstP95 = p95(toForward);
  const rttP95 = p95(attempts.map((a) => a.latencyMs));
  const syncAnswered = answers.filter((a) => (a.status === 201 || a.status === 200) && typeof a.leadId === "string");
  const smallWait = (smallRow?.firstSentAt ?? Number.NaN) - Date.parse(smallRow?.createdAt ?? "");
  const bound = 2 * (EGRESS.windowMs / EGRESS.limit) + 50;

  // Positive control for load=saturated: the egress was busy while the burst went, and the backlog outlasted it.
  const sendsMeanwhile = (
    sqliteOf(rig.gateway)
      .sqlite.prepare("select count(*) n from submission_attempts where started_at >= ? and started_at <= ?")
      .get(new Date(burstAt).toISOString(), new Date(burstDoneAt).toISOString()) as { n: number }
  ).n;
  const totals = await rig.upstreamTotals();
  const notForwarded = burstRows.filter((r) => r.status !== "forwarded").length;
  console.log(
    `${driver} burst, load=${load}: ${BURST} sync requests on an idle credential (60/min)${
      backlog ? ` with a backlog of ${backlog} (${(await rig.settled()) - 20 - BURST - 1} of it forwarded by then)` : ""
    }; accept → forwarded p50 ${p(toForward, 0.5)} ms, max ${Math.max(...toForward)} ms; egress ${(
      (sendsMeanwhile / Math.max(1, burstDoneAt - burstAt)) * 1_000
    ).toFixed(1)} sends/s while it went (limit ${EGRESS.limit}/s); ${notForwarded} not forwarded; upstream 429s ${
      totals.limited
    }`,
  );
  console.log(
    `RESULT case=burst driver=${driver} store=sqlite load=${load} burst_p95_ms=${burstP95} upstream_rtt_p95_ms=${rttP95} burst_vs_rtt_p95=${(
      burstP95 / Math.max(1, rttP95)
    ).toFixed(
      2,
    )} sync_answered=${syncAnswered.length}/${BURST} small_first_wait_ms=${smallWait} small_first_bound_ms=${bound}`,
  );
  await rig.close();
}

function p(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

const p95 = (values: number[]) => p(values, 0.95);
