import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeConnection, rotateHookUrl } from "../../../../src/gateway/connections/connection-lifecycle.js";
import type { RigCompany } from "../../../helpers/forwarding.js";
import {
  type Bench,
  type PresetSample,
  type PresetUnderTest,
  presetsUnderTest,
  startBench,
} from "./conformance-bench.js";
import { forgedRequests } from "./proof-variants.js";
import { unchanged } from "./sample-expectations.js";
import { declaredHandshake } from "./vendor-handshake.js";
import type { WireRequest } from "./vendor-signer.js";

/**
 * The hook connections' refusals (docs/connections.md, "POST /hooks/<token>"), for every shipped preset, each with its
 * documented sample as the request: a request the vendor's proof does not vouch for is 401 (a wrong or missing
 * signature, key or password, a changed byte, a timestamp outside the tolerance), an unknown or revoked hook token is
 * 404, XML with a DTD or an entity is 400 — and none stores anything, where the right request is stored.
 */

const PRESETS = await presetsUnderTest();

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(async () => bench?.close());

for (const preset of PRESETS) {
  describe(`${preset.id}: requests the vendor did not send are refused`, () => {
    let company: RigCompany;
    /** The documented sample each refused request is made of: the first that stores something. */
    const sample = storingSample(preset);
    beforeAll(async () => {
      company = await bench.company(preset.id);
    });

    // A preset whose only proof is its hook URL's token (CraftJack, Jotform, Yelp) has nothing else to forge.
    if (preset.manifest.proof.type !== "none") {
      it(`refuses ${proofFailures(preset)} with 401, storing nothing`, async () => {
        const connection = await connected(preset, company, sample);
        for (const forged of forgedRequests(preset, sample.request, connection.hookUrl)) {
          const answer = await bench.send(forged.wire);
          expect({ what: forged.what, status: answer.status, reason: reasonOf(answer.body) }).toEqual({
            what: forged.what,
            status: 401,
            reason: forged.code,
          });
        }
        expect(await bench.rows(company, connection.id)).toEqual([]);
        // The positive control; where the proof signs a time, signed 30 s short of the tolerance, which still passes.
        const tolerance = timestampTolerance(preset);
        const signedAt = Date.now() - (tolerance === undefined ? 0 : (tolerance - 30) * 1_000);
        await expectStored(
          preset,
          company,
          connection,
          bench.signed(preset, sample.request, connection.hookUrl, signedAt),
        );
      });
    }

    const handshake = preset.manifest.handshake;
    if (handshake?.type === "echo" && handshake.token) {
      const { param, secret } = handshake.token;
      it(`refuses a URL verification with another ${param} with 403, echoing nothing`, async () => {
        const connection = await connected(preset, company, sample);
        const forged = declaredHandshake(handshake, { ...preset.secrets, [secret]: "not-the-verify-token" });
        const answer = await bench.send(bench.signed(preset, forged.request, connection.hookUrl));
        const challenge = String(forged.request.query?.[handshake.echo] ?? "");
        expect({ status: answer.status, echoed: answer.body.includes(challenge) }).toEqual({
          status: 403,
          echoed: false,
        });
        // The positive control: the vendor's own verification, with the owner's token, is answered.
        await bench.verifyUrl(preset, connection.hookUrl);
      });
    }

    it("answers 404 to an unknown hook token, and to a revoked connection's current and previous tokens", async () => {
      const connection = await connected(preset, company, sample);
      const ctx = bench.rig.gateway.ctx;
      const request = (hookUrl: string) => bench.signed(preset, sample.request, hookUrl);
      await expectStored(preset, company, connection, request(connection.hookUrl));
      // Rotated: the new URL and, during the overlap, the previous one are both accepted (the positive control).
      const rotated = await rotateHookUrl({ ctx, companyId: company.gatewayCompanyId, id: connection.id });
      const accepted = preset.manifest.answer.status;
      expect((await bench.send(request(rotated.hookUrl))).status).toBe(accepted);
      expect((await bench.send(request(connection.hookUrl))).status).toBe(accepted);
      const stored = (await bench.settled(company, connection.id)).map(unchanged);

      const unknown = connection.hookUrl.replace(/hk_[^/?#]+/, `hk_${randomBytes(32).toString("base64url")}`);
      expect((await bench.send(request(unknown))).status).toBe(404);
      await revokeConnection({ ctx, companyId: company.gatewayCompanyId, id: connection.id });
      expect((await bench.send(request(rotated.hookUrl))).status).toBe(404);
      expect((await bench.send(request(connection.hookUrl))).status).toBe(404);
      expect((await bench.settled(company, connection.id)).map(unchanged)).toEqual(stored);
    });

    if (preset.manifest.bodyType === "xml") {
      it("refuses XML with a DOCTYPE, an internal or external entity, or an undeclared entity with 400, storing nothing", async () => {
        const connection = await connected(preset, company, sample);
        const right = bench.signed(preset, sample.request, connection.hookUrl);
        for (const [what, body] of Object.entries(withDtd(right.body.toString("utf8")))) {
          const answer = await bench.send({ ...right, body: Buffer.from(body, "utf8") });
          expect({ what, status: answer.status, reason: reasonOf(answer.body) }).toEqual({
            what,
            status: 400,
            reason: "xml_dtd_refused",
          });
        }
        expect(await bench.rows(company, connection.id)).toEqual([]);
        await expectStored(preset, company, connection, right);
      });
    }
  });
}

function storingSample(preset: PresetUnderTest): PresetSample {
  const found = preset.loaded.samples.find(
    (s) => "held" in s.expect || ("records" in s.expect && s.expect.records.length > 0),
  );
  if (!found) throw new Error(`${preset.id}: no documented sample stores anything`);
  return found;
}

function proofFailures(preset: PresetUnderTest): string {
  const proof = preset.manifest.proof;
  if (proof.type === "hmac") {
    const times = proof.timestamp ? ", a stale and a future timestamp" : "";
    return `a wrong or missing signature, one changed byte${times}`;
  }
  if (proof.type === "basic") return "a wrong password or user name, or none";
  return "a wrong or missing key";
}

/** A connection of the preset, its URL verified where the vendor verifies, its fetches answered as documented. */
async function connected(preset: PresetUnderTest, company: RigCompany, sample: PresetSample) {
  const connection = await bench.connect(preset, company);
  const fetch = preset.manifest.fetch;
  if (fetch) bench.api.answering({ fetch, secrets: preset.secrets }, sample.fetched);
  await bench.verifyUrl(preset, connection.hookUrl);
  return connection;
}

/** The positive control: the right request is answered as the preset says and stored. */
async function expectStored(
  preset: PresetUnderTest,
  company: RigCompany,
  connection: { id: string },
  wire: WireRequest,
) {
  expect((await bench.send(wire)).status).toBe(preset.manifest.answer.status);
  expect((await bench.settled(company, connection.id)).length).toBeGreaterThan(0);
}

function timestampTolerance(preset: PresetUnderTest): number | undefined {
  const proof = preset.manifest.proof;
  return proof.type === "hmac" ? proof.timestamp?.toleranceSeconds : undefined;
}

function reasonOf(body: string): unknown {
  try {
    return (JSON.parse(body) as { reason?: unknown }).reason;
  } catch {
    return body;
  }
}

/**
 * The documented XML with what XXE and entity-expansion attacks need (§8, docs/connections.md "XML"): a DOCTYPE, an
 * internal entity used in a field, an external one, and an entity used without any declaration.
 */
function withDtd(xml: string): Record<string, string> {
  const declaration = /^<\?xml[^>]*\?>/.exec(xml)?.[0] ?? "";
  const rest = xml.slice(declaration.length);
  const field = /<(\w+)>([^<&]+)<\/\1>/.exec(rest);
  if (!field) throw new Error("no text field in the documented XML");
  const [whole, name] = field;
  const using = rest.replace(whole, `<${name}>&first;</${name}>`);
  const root = /<(\w+)/.exec(rest)?.[1] ?? "Lead";
  return {
    "a DOCTYPE": `${declaration}\n<!DOCTYPE ${root}>${rest}`,
    "a DOCTYPE in lower case": `${declaration}\n<!doctype ${root}>${rest}`,
    "an internal entity": `${declaration}\n<!DOCTYPE ${root} [<!ENTITY first "James">]>${using}`,
    "an external entity": `${declaration}\n<!DOCTYPE ${root} [<!ENTITY first SYSTEM "file:///etc/passwd">]>${using}`,
    "an undeclared entity": `${declaration}${using}`,
  };
}
