import { describe, expect, it } from "vitest";
import { configuredLimits } from "../../src/cli/forwarding-options.js";
import { checkLiveConfig, parseConfig } from "../../src/gateway/config/config-file.js";

const loaded = (data: unknown) => ({ config: parseConfig(data, "test.json"), baseDir: ".", source: "test.json" });
const limits = { perCredentialPerMinute: 120, perCompanyPerMinute: 600, egressPerMinute: 1200 };

describe("§8 upstream limits from the config file", () => {
  it("keeps the figures per minute over the platform's minute by default", () => {
    expect(configuredLimits(loaded({ upstreamLimits: limits }))).toEqual({
      perCredential: { limit: 120, windowMs: 60_000 },
      perCompany: { limit: 600, windowMs: 60_000 },
      egress: { limit: 1200, windowMs: 60_000 },
      marginMs: 1,
    });
  });

  it("scales them to a sandbox run's shorter window (D-252)", () => {
    expect(configuredLimits(loaded({ upstreamLimits: { ...limits, windowMs: 1_000 } }))).toEqual({
      perCredential: { limit: 2, windowMs: 1_000 },
      perCompany: { limit: 10, windowMs: 1_000 },
      egress: { limit: 20, windowMs: 1_000 },
      marginMs: 1,
    });
  });

  it("refuses a window to which a figure does not scale whole, naming the figure", () => {
    expect(() => parseConfig({ upstreamLimits: { ...limits, windowMs: 700 } }, "test.json")).toThrow(
      /upstreamLimits\.perCredentialPerMinute: scaled to windowMs 700/,
    );
  });

  it("refuses a shorter window in live mode, and a config without one passes (positive control)", () => {
    expect(() => checkLiveConfig(loaded({ upstreamLimits: { ...limits, windowMs: 1_000 } }).config, "t")).toThrow(
      /upstreamLimits\.windowMs: the platform's window is a minute/,
    );
    expect(() => checkLiveConfig(loaded({ upstreamLimits: limits }).config, "t")).not.toThrow();
  });
});
