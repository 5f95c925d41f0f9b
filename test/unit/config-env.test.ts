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

describe("environment: PostgreSQL (docs/decisions.md, D-228)", () => {
  const key = "a".repeat(64);

  it("is unset by default: the gateway's state is the SQLite file", () => {
    const env = parseEnv({});
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.PG_POOL_MAX).toBe(10);
    expect(env.PG_STATEMENT_TIMEOUT_MS).toBe(30_000);
  });

  it("takes a postgres:// or postgresql:// URL with MASTER_KEY", () => {
    for (const url of ["postgres://gw@db.internal:5432/gateway", "postgresql://gw:secret@10.0.0.5/gateway"]) {
      expect(parseEnv({ DATABASE_URL: url, MASTER_KEY: key }).DATABASE_URL).toBe(url);
    }
  });

  it("refuses any other URL, naming the variable", () => {
    for (const url of ["mysql://db/gateway", "data/gateway.db", "postgres:/nohost", "https://db.internal"]) {
      expect(() => parseEnv({ DATABASE_URL: url, MASTER_KEY: key })).toThrow(/DATABASE_URL: a postgres:\/\//);
    }
  });

  it("requires MASTER_KEY with DATABASE_URL, naming it", () => {
    expect(() => parseEnv({ DATABASE_URL: "postgres://db/gateway" })).toThrow(
      /MASTER_KEY: required when DATABASE_URL is set/,
    );
    expect(() => parseEnv({ DATABASE_URL: "postgres://db/gateway", MASTER_KEY: "" })).toThrow(/MASTER_KEY/);
  });
});
