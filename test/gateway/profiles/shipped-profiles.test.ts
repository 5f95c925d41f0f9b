import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  compileProfile,
  findProfileDirs,
  formatDiff,
  type LoadedProfile,
  loadProfileDir,
  ProfileEngine,
  runGoldenSamples,
} from "../../../src/gateway/profiles/index.js";

/** `npm test` runs every shipped profile's golden samples (docs/profiles.md). */
const profiles: LoadedProfile[] = await Promise.all((await findProfileDirs("profiles")).map(loadProfileDir));
const vendors = profiles.filter((p) => !p.dir.includes("_attacks"));

let engine: ProfileEngine;
beforeAll(() => {
  engine = new ProfileEngine({ poolSize: 1 });
});
afterAll(() => engine.close());

describe("shipped profiles: at least five realistic vendor formats (docs/profiles.md)", () => {
  it("ships five or more vendor profiles, appointments among them", () => {
    expect(vendors.length).toBeGreaterThanOrEqual(5);
    expect(vendors.map((p) => p.kind)).toContain("appointment");
  });

  it.each(vendors.map((p) => [p.name, p] as const))(
    "%s has at least three samples, one a validation error",
    (_n, p) => {
      expect(p.samples.length).toBeGreaterThanOrEqual(3);
      expect(p.samples.some((s) => "error" in s.expect && s.expect.error.kind === "validation")).toBe(true);
    },
  );
});

describe("shipped profiles: golden samples", () => {
  it.each(profiles.map((p) => [p.name, p] as const))("%s compiles and passes every sample", async (_name, profile) => {
    expect(compileProfile(profile.expression)).toEqual({ ok: true });
    const report = await runGoldenSamples(engine, profile);
    const failures = report.results
      .filter((r) => !r.passed)
      .map((r) => [r.name, r.reason, ...r.diff.map(formatDiff)].join("\n  "));
    expect(failures).toEqual([]);
    expect(report.passed).toBe(true);
  });
});
