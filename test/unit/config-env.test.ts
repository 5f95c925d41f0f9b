import { describe, expect, it } from "vitest";
import { ConfigError, parseEnv } from "../../src/config.js";

describe("environment: trusted proxies (docs/configuration.md, Client addresses)", () => {
  it("is none by default, with x-forwarded-for as the header", () => {
    const env = parseEnv({});
    expect(env.TRUSTED_PROXIES).toEqual([]);
    expect(env.CLIENT_ADDRESS_HEADER).toBe("x-forwarded-for");
  });

  it("reads a comma-separated list of addresses and ranges, and a header name in any case", () => {
    const env = parseEnv({ TRUSTED_PROXIES: " 10.0.0.0/8, 127.0.0.1,fd00::/8 ", CLIENT_ADDRESS_HEADER: "X-Real-IP" });
    expect(env.TRUSTED_PROXIES).toEqual(["10.0.0.0/8", "127.0.0.1", "fd00::/8"]);
    expect(env.CLIENT_ADDRESS_HEADER).toBe("x-real-ip");
  });

  it("stops start-up naming the variable when an entry is not an address or range", () => {
    expect(() => parseEnv({ TRUSTED_PROXIES: "10.0.0.0/8,proxy.internal" })).toThrow(ConfigError);
    expect(() => parseEnv({ TRUSTED_PROXIES: "10.0.0.0/33" })).toThrow(/TRUSTED_PROXIES/);
    expect(() => parseEnv({ CLIENT_ADDRESS_HEADER: "x forwarded" })).toThrow(/CLIENT_ADDRESS_HEADER/);
  });
});
