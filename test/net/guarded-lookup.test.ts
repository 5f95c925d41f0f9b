import type { LookupAddress } from "node:dns";
import { describe, expect, it } from "vitest";
import { guardedLookup } from "../../src/net/guarded-lookup.js";
import { compilePolicy, OutboundError, type Resolver, resolveAllowed } from "../../src/net/index.js";

const live = compilePolicy({ mode: "live" });
const answer =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));

/** Calls the lookup the way net.connect does; no socket is opened. */
function lookup(resolve: Resolver, options: { all?: boolean; family?: number } = {}) {
  const fn = guardedLookup(live, { plaintext: false, resolve });
  return new Promise<{ error: Error | null; address: string | LookupAddress[]; family?: number }>((done) => {
    fn("hooks.vendor.test", { all: options.all ?? false, family: options.family ?? 0 }, (error, address, family) =>
      done({ error, address, family }),
    );
  });
}

describe("SSRF guard: the connect-time lookup", () => {
  it("passes on the checked answer: one address, or all of them when asked", async () => {
    expect(await lookup(answer("93.184.216.34"))).toEqual({ error: null, address: "93.184.216.34", family: 4 });
    const all = await lookup(answer("93.184.216.34", "2606:2800:220:1::1"), { all: true });
    expect(all.address).toEqual([
      { address: "93.184.216.34", family: 4 },
      { address: "2606:2800:220:1::1", family: 6 },
    ]);
  });

  it("answers only the family asked for", async () => {
    expect((await lookup(answer("93.184.216.34", "2606:2800:220:1::1"), { family: 6 })).address).toBe(
      "2606:2800:220:1::1",
    );
  });

  it.each([
    ["a private address", ["10.0.0.1"], "private"],
    ["loopback", ["127.0.0.1"], "loopback"],
    ["the metadata address", ["169.254.169.254"], "metadata"],
    ["an IPv4-mapped private address", ["::ffff:192.168.1.1"], "private"],
    ["a public and a private address together", ["93.184.216.34", "10.0.0.1"], "private"],
  ])("refuses a name that resolves to %s", async (_name, addresses, reason) => {
    const result = await lookup(answer(...addresses), { all: true });
    expect(result.error).toBeInstanceOf(OutboundError);
    expect(result.error).toMatchObject({ code: "address_refused", reason });
  });

  it("reports a failed or empty resolution as a DNS error", async () => {
    const failing: Resolver = async () => {
      throw new Error("ENOTFOUND");
    };
    expect((await lookup(failing)).error).toMatchObject({ code: "dns" });
    expect((await lookup(answer())).error).toMatchObject({ code: "dns" });
    expect((await lookup(answer("93.184.216.34"), { family: 6 })).error).toMatchObject({ code: "dns" });
  });

  it("resolveAllowed, the same check ahead of time, refuses what the lookup refuses", async () => {
    await expect(
      resolveAllowed("x.test", live, { plaintext: false, resolve: answer("93.184.216.34") }),
    ).resolves.toHaveLength(1);
    await expect(
      resolveAllowed("x.test", live, { plaintext: false, resolve: answer("fd00::1") }),
    ).rejects.toMatchObject({
      code: "address_refused",
      reason: "unique_local",
    });
  });
});
