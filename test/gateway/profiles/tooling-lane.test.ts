import { readFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import {
  EngineOverloadedError,
  loadProfileDir,
  type MappingOutcome,
  ProfileEngine,
} from "../../../src/gateway/profiles/index.js";

/**
 * docs/decisions.md, "Bounded input": the owner's tooling (previews, replays, sample tests) evaluates on a lane of its
 * own, so an owner cannot take the evaluators intake waits for.
 */
const RUNAWAY_DIR = "profiles/_attacks/runaway-retry-loop";
const benign = {
  name: "Olivia Brooks",
  email: "olivia.brooks@example.com",
  phone: "512-555-0142",
  address: "12 Shoal Creek Blvd, Austin, TX 78701",
  attempt: 1,
};

const engines: ProfileEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()));
});

const timeLimitOf = (outcome: MappingOutcome) =>
  outcome.ok === false && outcome.kind === "guardrail"
    ? /after (\d+) milliseconds/.exec(outcome.message)?.[1]
    : undefined;

/**
 * The time limit an evaluation was stopped at: JSONata's own ("after N milliseconds"), or the deadline that kills an
 * evaluator that stopped cooperating, the limit plus its 100 ms grace ("within N ms") — on a loaded machine the
 * evaluator may not reach JSONata's check in time.
 */
const limitStoppedAt = (outcome: MappingOutcome) => {
  if (outcome.ok || outcome.kind !== "guardrail") return undefined;
  if (outcome.limit === "deadline") return Number(/within (\d+) ms/.exec(outcome.message)?.[1]) - 100;
  return Number(timeLimitOf(outcome));
};

describe("the owner tooling's lane (docs/decisions.md, Bounded input)", () => {
  it("runs a tooling evaluation on its own lane while the shared evaluators and the suspect lane stay free", async () => {
    const engine = new ProfileEngine({ poolSize: 1 });
    engines.push(engine);
    await engine.ready();
    expect(engine.stats().toolingLane).toBeUndefined(); // started on first use
    const profile = await loadProfileDir(RUNAWAY_DIR);
    const payload = JSON.parse(await readFile(`${RUNAWAY_DIR}/payloads/runaway.json`, "utf8")) as unknown;
    const draft = { ...profile, versionId: "draft:co_1:shape", payload };
    // A runaway draft given three seconds: the lane is busy with it all that time.
    const running = engine.map(draft, { tooling: true, timeoutMs: 3_000 });
    await expect.poll(() => engine.stats().toolingLane?.busy, { timeout: 20_000 }).toBe(1);
    expect(engine.stats().pool.busy).toBe(0);
    expect(engine.stats().suspectLane?.busy).toBe(0);
    // Intake's evaluations go on beside it, on the shared evaluators.
    expect(await engine.map({ ...profile, versionId: "published", payload: benign })).toMatchObject({ ok: true });
    expect(engine.stats().toolingLane?.busy).toBe(1);
    // Stopped by its own time limit, not intake's 50 ms; or, on a machine too loaded to give the niced lane half a core
    // for it, judged starved (D-097: the limit passed on too little CPU to blame the profile) and answered as overload.
    const stopped = await running.catch((error: unknown) => error);
    if (stopped instanceof EngineOverloadedError) expect(stopped.message).toMatch(/time limit passed after/);
    else expect(limitStoppedAt(stopped as MappingOutcome)).toBe(3_000);
    expect(engine.stats().toolingLane).toMatchObject({ workers: 1, restarts: 0 });
    expect(engine.stats().inline?.evaluations ?? 0).toBe(0);
  });
});
