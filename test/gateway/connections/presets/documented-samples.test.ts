import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RigCompany } from "../../../helpers/forwarding.js";
import {
  type Bench,
  type PresetSample,
  type PresetUnderTest,
  presetsUnderTest,
  startBench,
} from "./conformance-bench.js";
import { expectHeldRows, expectPlatformReceived, expectRecordRows, unchanged } from "./sample-expectations.js";
import { expectedAnswer } from "./vendor-answer.js";

/**
 * The hook connections' acceptance (docs/connections.md, docs/vendors.md): for every shipped preset, each documented
 * sample posted to a hook URL exactly as the vendor sends it — its content type and raw bytes, its signature computed
 * with the vendor's own recipe (vendor-signer.ts), the URL verification first where the vendor makes one, the notified
 * records fetched from a vendor API answering the documented responses — ends in the records the sample expects: the
 * canonical bodies exactly, at the gateway and at the platform (the sandbox), or the payload held with the reason. A
 * vendor's retry of it stores nothing new. Each sample is a first delivery to a connection of its own.
 */

const PRESETS = await presetsUnderTest();

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(async () => bench?.close());

for (const preset of PRESETS) {
  describe(`${preset.id}: its documented samples, as the vendor sends them`, () => {
    let company: RigCompany;
    beforeAll(async () => {
      company = await bench.company(preset.id);
    });

    for (const sample of preset.loaded.samples) {
      it(`${sample.file}: ${outcome(sample)}`, async () => {
        if ("answer" in sample.expect) await verificationAnswered(preset, company, sample);
        else await delivered(preset, company, sample);
      });
    }
  });
}

function outcome(sample: PresetSample): string {
  const expected = sample.expect;
  if ("answer" in expected) return `answers the URL verification with ${expected.answer.status}, storing nothing`;
  if ("held" in expected) return "is held with the reason";
  if (expected.records.length === 0) return "stores nothing";
  const named = expected.records.map(
    (r) => `${r.kind === "lead" ? "a lead" : "an appointment"}${r.action ? ` ${r.action}` : ""}`,
  );
  return `makes ${named.join(", ")}`;
}

/** The vendor's URL verification, answered as it documents; then a delivery is stored (the positive control). */
async function verificationAnswered(preset: PresetUnderTest, company: RigCompany, sample: PresetSample) {
  if (!("answer" in sample.expect)) return;
  const connection = await bench.connect(preset, company);
  const answer = await bench.send(bench.signed(preset, sample.request, connection.hookUrl));
  const { status, contentType, body = "" } = sample.expect.answer;
  expect(answer).toEqual({ status, contentType, body });
  expect(await bench.rows(company, connection.id)).toEqual([]);
  await storesSomething(preset, company, connection);
}

/** A delivery, then the vendor's retry of it. */
async function delivered(preset: PresetUnderTest, company: RigCompany, sample: PresetSample) {
  const { manifest } = preset;
  const connection = await bench.connect(preset, company);
  if (manifest.fetch) bench.api.answering({ fetch: manifest.fetch, secrets: preset.secrets }, sample.fetched);
  await bench.verifyUrl(preset, connection.hookUrl);
  const before = bench.platform(company);
  const fetchedBefore = bench.api.served.length;

  const answer = await bench.send(bench.signed(preset, sample.request, connection.hookUrl));
  expect(answer).toEqual(expectedAnswer(manifest.answer, sample.request.body, manifest.bodyType));
  const rows = await bench.settled(company, connection.id);
  // The notified records, each read from the vendor's API once, with the declared auth (a refused one fails its row).
  expect(bench.api.refused).toEqual([]);
  expect(bench.api.served.slice(fetchedBefore).sort()).toEqual(Object.keys(sample.fetched ?? {}).sort());

  if ("held" in sample.expect) expectHeldRows(rows, sample, manifest.fetch !== undefined);
  else if ("records" in sample.expect) {
    const records = expectRecordRows(rows, sample.expect.records);
    // What reached the platform, where something was sent (a sample of changes only sends nothing).
    if (records.some((r) => r.status === "forwarded")) expectPlatformReceived(before, bench.platform(company), records);
  }
  if (rows.length === 0) await storesSomething(preset, company, connection);
  else await retryStoresNothingNew(preset, company, connection, sample, rows);
}

/**
 * The vendor's retry of the same delivery: the same answer, no new record — the records are keyed by the vendor's own
 * ids (D-305). For a preset that fetches, the retry's notified record is read again and, found stored already,
 * leaves nothing behind (D-323): the API's reads are the positive marker that the retry was processed.
 */
async function retryStoresNothingNew(
  preset: PresetUnderTest,
  company: RigCompany,
  connection: { id: string; hookUrl: string },
  sample: PresetSample,
  first: Awaited<ReturnType<Bench["rows"]>>,
) {
  const platform = bench.platform(company);
  const reads = bench.api.served.length;
  const answer = await bench.send(bench.signed(preset, sample.request, connection.hookUrl));
  const { manifest } = preset;
  expect(answer).toEqual(expectedAnswer(manifest.answer, sample.request.body, manifest.bodyType));
  if (manifest.fetch) {
    const notified = Object.keys(sample.fetched ?? {}).length;
    await expect.poll(() => bench.api.served.length - reads, { timeout: 20_000 }).toBe(notified);
    // Read again, and removed once found stored: the rows are the first delivery's, unchanged.
    await expect
      .poll(async () => (await bench.settled(company, connection.id)).map(unchanged), { timeout: 20_000 })
      .toEqual(first.map(unchanged));
  } else expect((await bench.settled(company, connection.id)).map(unchanged)).toEqual(first.map(unchanged));
  expect(bench.platform(company)).toEqual(platform);
}

/** The positive control of an absence: the preset's first sample that stores something, stored on that connection. */
async function storesSomething(
  preset: PresetUnderTest,
  company: RigCompany,
  connection: { id: string; hookUrl: string },
) {
  const storing = preset.loaded.samples.find(
    (s) => "held" in s.expect || ("records" in s.expect && s.expect.records.length > 0),
  );
  if (!storing) throw new Error(`${preset.id}: no sample stores anything`);
  if (preset.manifest.fetch) {
    bench.api.answering({ fetch: preset.manifest.fetch, secrets: preset.secrets }, storing.fetched);
  }
  const answer = await bench.send(bench.signed(preset, storing.request, connection.hookUrl));
  expect(answer.status).toBe(preset.manifest.answer.status);
  expect((await bench.settled(company, connection.id)).length).toBeGreaterThan(0);
}
