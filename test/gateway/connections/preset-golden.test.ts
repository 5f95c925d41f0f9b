import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { presetGoldenSamples } from "../../../src/gateway/connections/preset-golden.js";
import { loadPresetDir, loadPresets } from "../../../src/gateway/connections/presets/index.js";
import { ProfileEngine, runGoldenSamples } from "../../../src/gateway/profiles/index.js";

/**
 * A preset's documented samples are the golden samples of the profile a connection is given (preset-golden.ts); for a
 * preset that fetches, each documented response of the vendor's API is mapped with the notification's target bound as
 * `$notification`, as the fetcher maps it (docs/connections.md, "Fetch after notify").
 */
const PRESETS = new URL("../../../presets", import.meta.url).pathname;

let engine: ProfileEngine;
beforeAll(() => {
  engine = new ProfileEngine({ poolSize: 1, suspectForMs: 0 });
});
afterAll(() => engine.close());

describe("shipped presets' samples as golden samples", () => {
  it("pass for every preset: a connection can be made of each", async () => {
    const presets = await loadPresets(PRESETS);
    expect(presets.length).toBeGreaterThan(0);
    for (const preset of presets) {
      const samples = await presetGoldenSamples(engine, preset);
      const report = await runGoldenSamples(engine, {
        versionId: preset.versionId,
        kind: (preset.preset.kinds as readonly string[]).includes("appointment") ? "appointment" : "lead",
        expression: preset.expression,
        samples,
      });
      expect({ preset: preset.id, failed: report.results.filter((r) => !r.passed) }).toEqual({
        preset: preset.id,
        failed: [],
      });
    }
  });

  it("binds each fetched record's target: Acuity's action tells a reschedule, which the record alone cannot", async () => {
    const acuity = await loadPresetDir(`${PRESETS}/acuity`);
    const samples = await presetGoldenSamples(engine, acuity);
    const rescheduled = samples.find((s) => s.name.startsWith("action=rescheduled"));
    expect(rescheduled?.bindings).toEqual({ notification: { id: "54321", action: "rescheduled" } });
    expect(rescheduled?.expect).toMatchObject({ records: [{ action: "reschedule" }] });
    if (!rescheduled) throw new Error("no rescheduled sample");
    const source = { versionId: acuity.versionId, kind: "appointment" as const, expression: acuity.expression };
    expect((await runGoldenSamples(engine, { ...source, samples: [rescheduled] })).passed).toBe(true);
    // Without its notification the same record reads as a new booking, and the sample fails.
    const { bindings: _bindings, ...unbound } = rescheduled;
    expect((await runGoldenSamples(engine, { ...source, samples: [unbound] })).passed).toBe(false);
  });

  it("gives one sample per notified record: Meta's two leads in one POST are two, each with its leadgen_id", async () => {
    const meta = await loadPresetDir(`${PRESETS}/meta-lead-ads`);
    const samples = (await presetGoldenSamples(engine, meta)).filter((s) => s.name.startsWith("two leadgen"));
    expect(samples.map((s) => s.bindings)).toEqual([
      { notification: { id: "123123123123" } },
      { notification: { id: "123123123124" } },
    ]);
  });

  it("gives none for a notification naming no record (LinkedIn's deletion) and none for a handshake", async () => {
    const linkedin = await loadPresetDir(`${PRESETS}/linkedin-lead-gen`);
    const names = (await presetGoldenSamples(engine, linkedin)).map((s) => s.name);
    expect(names.some((n) => n.startsWith("LEAD_ACTION CREATED"))).toBe(true);
    expect(names.some((n) => n.startsWith("LEAD_ACTION DELETED"))).toBe(false);
  });
});
