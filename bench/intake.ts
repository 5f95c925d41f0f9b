/**
 * `npm run bench:intake`: intake throughput against a bare echo route in the same run, then the p99 of normal keys
 * with and without a key whose profile runs away on its payloads.
 *
 * Scenario 1 (throughput): closed-loop load on POST /api/inbound/leads with a realistic native payload and profile
 * (auth + map + validate + commit to a WAL file database), and the same load on a Hono route that parses and echoes
 * the JSON. Scenario 2 (isolation): an open-loop load at half the measured intake rate, first alone, then alongside
 * 20 req/s from a key whose profile passes its samples but loops on real input. At saturation p99 measures only the
 * queue the load generator builds, so the isolation scenario holds the rate fixed.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startChild } from "./lib/child.js";
import { type LoadResult, load } from "./lib/load.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const PROFILE = process.env.BENCH_PROFILE ?? "profiles/homequote-marketplace";
const RUNAWAY = process.env.BENCH_RUNAWAY_PROFILE ?? "profiles/_attacks/runaway-retry-loop";

function samplePayload(dir: string): unknown {
  const file = readdirSync(join(dir, "samples"))
    .sort()
    .find((name) => name.endsWith(".json"));
  if (!file) throw new Error(`no sample in ${dir}/samples`);
  return (JSON.parse(readFileSync(join(dir, "samples", file), "utf8")) as { payload: unknown }).payload;
}

function fmt(r: LoadResult): string {
  return `${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, non-2xx ${r.non2xx}, errors ${r.errors}`;
}

const normalPayload = JSON.stringify(samplePayload(PROFILE));
const runawayPayload = readFileSync(join(RUNAWAY, "payloads", "runaway.json"), "utf8");

const echo = await startChild<{ url: string }>("bench/intake-server.ts", ["echo"]);
await load({ url: `${echo.info.url}/api/inbound/leads`, body: normalPayload, seconds: 2, connections: CONNECTIONS });
const echoResult = await load({
  url: `${echo.info.url}/api/inbound/leads`,
  body: normalPayload,
  seconds: SECONDS,
  connections: CONNECTIONS,
});
await echo.stop();
console.log(`echo     ${fmt(echoResult)}`);

const gw = await startChild<{ url: string; keys: { normal: string; runaway: string } }>("bench/intake-server.ts", [
  "gateway",
  PROFILE,
  RUNAWAY,
]);
const leads = `${gw.info.url}/api/inbound/leads`;
const normal = { "x-api-key": gw.info.keys.normal };
await load({ url: leads, body: normalPayload, headers: normal, seconds: 2, connections: CONNECTIONS });
const intake = await load({
  url: leads,
  body: normalPayload,
  headers: normal,
  seconds: SECONDS,
  connections: CONNECTIONS,
});
console.log(`intake   ${fmt(intake)}`);
const ratio = intake.rps / echoResult.rps;
console.log(`ratio    ${ratio.toFixed(3)} (intake / echo)`);

const rate = Math.max(50, Math.round(intake.rps / 2));
const alone = await load({
  url: leads,
  body: normalPayload,
  headers: normal,
  seconds: SECONDS,
  connections: CONNECTIONS,
  rate,
});
console.log(`at ${rate} req/s, alone:        ${fmt(alone)}`);
const runawayRun = load({
  url: leads,
  body: runawayPayload,
  headers: { "x-api-key": gw.info.keys.runaway },
  seconds: SECONDS,
  connections: 4,
  rate: 20,
});
const withRunaway = await load({
  url: leads,
  body: normalPayload,
  headers: normal,
  seconds: SECONDS,
  connections: CONNECTIONS,
  rate,
});
const runaway = await runawayRun;
console.log(`at ${rate} req/s, with runaway: ${fmt(withRunaway)}`);
console.log(
  `runaway key: ${runaway.rps.toFixed(1)} req/s, non-2xx ${runaway.non2xx} (422 expected), p99 ${runaway.p99} ms`,
);
await gw.stop();

const runawayRatio = withRunaway.p99 / Math.max(1, alone.p99);
console.log(
  `RESULT intake_rps=${intake.rps.toFixed(0)} echo_rps=${echoResult.rps.toFixed(0)} ratio=${ratio.toFixed(3)} p99_ms=${intake.p99} runaway_p99_ratio=${runawayRatio.toFixed(3)}`,
);
