import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { createGateway } from "../../../src/gateway/create-gateway.js";
import {
  compileFast,
  INSTALLED_JSONATA,
  jsonataMismatch,
  REPRODUCED_JSONATA,
} from "../../../src/gateway/profiles/compiler/index.js";
import { Evaluator } from "../../../src/gateway/profiles/evaluator.js";
import { HELPERS } from "../../../src/gateway/profiles/helpers/index.js";
import type { MapInput, ProfileEngine } from "../../../src/gateway/profiles/index.js";
import { ProfileProgram } from "../../../src/gateway/profiles/program.js";
import { HttpMetrics } from "../../../src/http/metrics.js";
import { captureLog } from "../../helpers/log-capture.js";

/**
 * docs/profiles.md, "Compiled expressions": the compiled path is a line-for-line port of one JSONata release, so that
 * release is pinned, and a disagreement with JSONata's interpreter ends the version's compiled and inline evaluation.
 */

describe("the compiled path runs only on the JSONata release it reproduces", () => {
  it("the installed jsonata is that release (fails when npm installs another)", () => {
    expect(INSTALLED_JSONATA).toBe(REPRODUCED_JSONATA);
  });

  it("package.json pins it exactly, and the lock file resolves it", () => {
    const manifest = JSON.parse(readFileSync("package.json", "utf8")) as { dependencies: Record<string, string> };
    expect(manifest.dependencies.jsonata).toBe(REPRODUCED_JSONATA);
    const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as {
      packages: Record<string, { version?: string }>;
    };
    expect(lock.packages["node_modules/jsonata"]?.version).toBe(REPRODUCED_JSONATA);
  });

  it("with any other release installed, nothing is compiled: the interpreter (JSONata itself) answers", () => {
    expect(jsonataMismatch(REPRODUCED_JSONATA)).toBeUndefined();
    expect(jsonataMismatch("2.2.3")).toBe(
      `jsonata 2.2.3 is installed; the compiled path reproduces ${REPRODUCED_JSONATA}`,
    );
    // The release installed here compiles (the positive control of the guard above).
    expect(compileFast(new ProfileProgram('{"n": name}').interpreter.ast(), HELPERS).ok).toBe(true);
  });
});

const PERSON = { name: "Ada Lovelace", email: "ada.private@example.com" };

describe("a disagreement with the interpreter", () => {
  it("is in the evaluator's reply with its reason only, and that evaluator interprets the version from then on", async () => {
    const evaluator = new Evaluator(undefined, {
      compiler: () => ({ ok: true, program: { evaluate: () => ({ n: "wrong", leaked: PERSON.email }) } }),
    });
    const request = { id: 1, versionId: "v1", kind: "outbound" as const, expression: '{"n": name}', timeoutMs: 50 };
    const reply = await evaluator.evaluate({ ...request, payload: PERSON });
    expect(reply).toMatchObject({
      ok: true,
      body: { n: PERSON.name },
      diverged: "the compiled path answered differently",
    });
    expect(reply.trusted).toBeUndefined();
    expect(JSON.stringify(reply.diverged)).not.toContain(PERSON.email);
    expect(evaluator.compiledPath("v1")).toBe(false);
    const next = await evaluator.evaluate({ ...request, id: 2, payload: PERSON });
    expect(next.diverged).toBeUndefined();
  });

  it("an evaluator told that another diverged interprets the version too", async () => {
    const evaluator = new Evaluator();
    const request = { id: 1, versionId: "v2", kind: "outbound" as const, expression: '{"n": name}', timeoutMs: 50 };
    await evaluator.evaluate({ ...request, payload: PERSON });
    expect(evaluator.compiledPath("v2")).toBe(true);
    await evaluator.evaluate({ ...request, id: 2, payload: PERSON, interpretOnly: true });
    expect(evaluator.compiledPath("v2")).toBe(false);
  });
});

describe("the engine, told of a divergence, ends inline trust for that version", () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  const LEAD = `{ "fullName": name, "email": email, "phone": "+15125550100", "address": "1 Main St, Austin, TX" }`;
  const input = (versionId: string): MapInput => ({
    versionId,
    kind: "lead",
    expression: LEAD,
    payload: PERSON,
    payloadChars: JSON.stringify(PERSON).length,
  });
  const mapUntilInline = async (engine: ProfileEngine, versionId: string) => {
    for (let i = 0; i < 80 && !engine.tryInline(input(versionId)).outcome; i++) await engine.map(input(versionId));
    expect(engine.tryInline(input(versionId)).outcome).toBeDefined();
  };

  it("logs the version id and the reason, no mapped data; counts it in /metrics; never maps it inline again", async () => {
    const { log, lines, text } = captureLog();
    const metrics = new HttpMetrics("gateway");
    const gateway = await createGateway({
      databasePath: ":memory:",
      log,
      masterKey: randomBytes(32).toString("hex"),
      engine: { poolSize: 1 },
      metrics,
    });
    closers.push(() => gateway.close());
    const engine = gateway.ctx.engine;
    await mapUntilInline(engine, "v-trusted");
    await mapUntilInline(engine, "v-other");
    expect(engine.tryInline(input("v-trusted")).outcome).toBeDefined();

    // What the engine does with an evaluator's reply carrying `diverged` (the evaluator test above makes one).
    engine.diverged("v-trusted", "the compiled path answered differently");

    expect(engine.tryInline(input("v-trusted")).outcome).toBeUndefined();
    // Evaluators now interpret it, so no reply says it is trusted again.
    for (let i = 0; i < 40; i++) expect((await engine.map(input("v-trusted"))).ok).toBe(true);
    expect(engine.tryInline(input("v-trusted")).outcome).toBeUndefined();
    // Another version keeps its inline trust (the positive control).
    expect(engine.tryInline(input("v-other")).outcome).toBeDefined();

    const line = lines.find((l) => l.versionId === "v-trusted");
    expect(line).toMatchObject({ level: 40, versionId: "v-trusted", reason: "the compiled path answered differently" });
    const { level: _l, time: _t, pid: _p, hostname: _h, msg: _m, ...fields } = line ?? {};
    expect(fields).toEqual({ versionId: "v-trusted", reason: "the compiled path answered differently" });
    expect(text()).not.toContain(PERSON.email);

    const scraped = await (await gateway.app.request("/metrics")).text();
    expect(scraped).toMatch(/^profile_compiled_divergences_total\{app="gateway"\} 1$/m);
  });
});
