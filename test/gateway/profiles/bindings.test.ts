import { afterEach, describe, expect, it } from "vitest";
import { Evaluator } from "../../../src/gateway/profiles/evaluator.js";
import { type MapInput, ProfileEngine, runGoldenSamples } from "../../../src/gateway/profiles/index.js";

/**
 * docs/profiles.md, "Bindings": variables bound beside the payload (`{notification: …}` is `$notification`), as a
 * fetched record is mapped with the notification that named it (docs/connections.md, "Fetch after notify"). They are
 * the interpreter's: such an evaluation never runs inline nor on the compiled path.
 */

const engines: ProfileEngine[] = [];
const newEngine = () => {
  const engine = new ProfileEngine({ poolSize: 1, suspectForMs: 60_000 });
  engines.push(engine);
  return engine;
};
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()));
});

const lead = { name: "Ann Lee", email: "ann@example.com", phone: "+15125550123", address: "1 Main St, Austin" };
const leadBody = { fullName: "Ann Lee", email: "ann@example.com", phone: "+15125550123", address: "1 Main St, Austin" };

/** In the compiled subset but for `$notification`, which no block binds. */
const WITH_NOTIFICATION = `{"kind": "lead", "id": $notification.id, "action": $notification.action = "moved" ? "reschedule",
  "body": {"fullName": name, "email": email, "phone": phone, "address": address}}`;
/** In the compiled subset: reads no binding. */
const PLAIN = `{"fullName": name, "email": email, "phone": phone, "address": address}`;

let counter = 0;
async function evaluate(evaluator: Evaluator, expression: string, bindings?: Record<string, unknown>) {
  const reply = await evaluator.evaluate({
    id: counter++,
    versionId: `bindings-${counter}`,
    kind: "lead",
    expression,
    payload: lead,
    timeoutMs: 5_000,
    ...(bindings ? { bindings } : {}),
  });
  const { id: _id, elapsedMs: _elapsed, trusted: _trusted, ...outcome } = reply;
  return outcome;
}

describe("bindings in an evaluator", () => {
  const evaluator = new Evaluator(undefined, { checkedEvaluations: 0 });

  it("binds each variable beside the payload", async () => {
    expect(await evaluate(evaluator, WITH_NOTIFICATION, { notification: { id: "54321", action: "moved" } })).toEqual({
      ok: true,
      records: [{ kind: "lead", id: "54321", action: "reschedule", body: leadBody }],
    });
  });

  it("leaves an unbound variable undefined, as before bindings existed", async () => {
    expect(await evaluate(evaluator, WITH_NOTIFICATION)).toEqual({
      ok: true,
      records: [{ kind: "lead", body: leadBody }],
    });
  });

  it("interprets a compiled version's evaluation with bindings, so a binding is never read as missing", async () => {
    // The same version id, compiled and trusted (no checks left) by its first evaluation without bindings.
    const versionId = "bindings-compiled";
    const run = (bindings?: Record<string, unknown>) =>
      evaluator.evaluate({
        id: counter++,
        versionId,
        kind: "lead",
        expression: `{"fullName": $exists($who) ? $who : name, "email": email, "phone": phone, "address": address}`,
        payload: lead,
        timeoutMs: 5_000,
        ...(bindings ? { bindings } : {}),
      });
    expect(await run()).toMatchObject({ ok: true, body: leadBody });
    expect(evaluator.compiledPath(versionId)).toBe(false);
    const compiledVersion = "bindings-compiled-plain";
    const plain = (bindings?: Record<string, unknown>) =>
      evaluator.evaluate({
        id: counter++,
        versionId: compiledVersion,
        kind: "lead",
        expression: PLAIN,
        payload: lead,
        timeoutMs: 5_000,
        ...(bindings ? { bindings } : {}),
      });
    expect(await plain()).toMatchObject({ ok: true, body: leadBody });
    expect(evaluator.compiledPath(compiledVersion)).toBe(true);
    expect(await plain({ unused: 1 })).toMatchObject({ ok: true, body: leadBody });
    // A bound variable the compiled subset cannot read is read by the interpreter.
    expect(await run({ who: "Bo Diaz" })).toMatchObject({ ok: true, body: { ...leadBody, fullName: "Bo Diaz" } });
  });

  it("keeps one evaluation's bindings from the next", async () => {
    const versionId = "bindings-isolated";
    const run = (bindings?: Record<string, unknown>) =>
      evaluator.evaluate({
        id: counter++,
        versionId,
        kind: "lead",
        expression: WITH_NOTIFICATION,
        payload: lead,
        timeoutMs: 5_000,
        ...(bindings ? { bindings } : {}),
      });
    expect(await run({ notification: { id: "first" } })).toMatchObject({ records: [{ id: "first" }] });
    const after = await run();
    expect(after).toMatchObject({ ok: true, records: [{ kind: "lead", body: leadBody }] });
    expect(after).not.toMatchObject({ records: [{ id: "first" }] });
  });
});

describe("bindings through the engine", () => {
  it("reach the evaluator processes as plain data", async () => {
    const engine = newEngine();
    const outcome = await engine.map({
      versionId: "bindings-pool",
      kind: "lead",
      expression: WITH_NOTIFICATION,
      payload: lead,
      bindings: { notification: { id: "x-1", action: "moved" } },
    });
    expect(outcome).toMatchObject({ ok: true, records: [{ id: "x-1", action: "reschedule" }] });
  });

  it("never run inline, even for a version mapped inline without them", async () => {
    const engine = newEngine();
    const input = (bindings?: Record<string, unknown>): MapInput => ({
      versionId: "bindings-inline",
      kind: "lead",
      expression: PLAIN,
      payload: lead,
      payloadChars: JSON.stringify(lead).length,
      ...(bindings ? { bindings } : {}),
    });
    // Positive control: the version earns inline evaluation.
    for (let i = 0; i < 80 && (engine.stats().inline?.evaluations ?? 0) === 0; i++) await engine.map(input());
    const inline = engine.stats().inline?.evaluations ?? 0;
    expect(inline).toBeGreaterThan(0);
    expect(engine.tryInline(input({ notification: { id: "1" } })).outcome).toBeUndefined();
    expect(await engine.map(input({ notification: { id: "1" } }))).toMatchObject({ ok: true, body: leadBody });
    expect(engine.stats().inline?.evaluations).toBe(inline);
    await engine.map(input());
    expect(engine.stats().inline?.evaluations).toBe(inline + 1);
  });

  it("refuses a binding that is no variable name or would hide a helper", async () => {
    const engine = newEngine();
    const map = (bindings: Record<string, unknown>) =>
      engine.map({ versionId: "bindings-names", kind: "lead", expression: PLAIN, payload: lead, bindings });
    await expect(map({ "not a name": 1 })).rejects.toThrow(/not a variable name/);
    await expect(map({ default: 1 })).rejects.toThrow(/helper/);
    await expect(map({ notification: 1 })).resolves.toMatchObject({ ok: true });
  });
});

describe("golden samples with bindings", () => {
  it("pass or fail as the profile reads them", async () => {
    const engine = newEngine();
    const records = (action?: string) => [{ kind: "lead", id: "54321", ...(action ? { action } : {}), body: leadBody }];
    const report = await runGoldenSamples(engine, {
      versionId: "bindings-golden",
      kind: "lead",
      expression: WITH_NOTIFICATION,
      samples: [
        {
          name: "moved",
          payload: lead,
          bindings: { notification: { id: "54321", action: "moved" } },
          expect: { records: records("reschedule") },
        },
        {
          name: "bound, but the wrong expectation",
          payload: lead,
          bindings: { notification: { id: "54321", action: "moved" } },
          expect: { records: records() },
        },
        { name: "unbound", payload: lead, expect: { records: [{ kind: "lead", body: leadBody }] } },
      ],
    });
    expect(report.results.map((r) => [r.name, r.passed])).toEqual([
      ["moved", true],
      ["bound, but the wrong expectation", false],
      ["unbound", true],
    ]);
    expect(report.results[1]?.reason).toMatch(/records differ/);
  });
});
