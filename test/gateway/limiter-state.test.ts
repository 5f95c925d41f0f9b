import { describe, expect, it } from "vitest";
import { SignInLimiter } from "../../src/gateway/owner/sign-in-limiter.js";
import { TokenBuckets } from "../../src/gateway/token-buckets.js";
import { ApiError } from "../../src/http/errors.js";
import { clientAddressResolver } from "../../src/net/client-address.js";

/** docs/decisions.md, "Bounded input": a limiter's state is bounded whatever keys it is given. */
describe("token buckets hold bounded state", () => {
  it("drops a bucket once it has been idle long enough to refill, and keeps one that has not", () => {
    let now = 0;
    // 10 tokens, 1 per second: an empty bucket is full again after 10 s.
    const buckets = new TokenBuckets(1, 10, 100_000, () => now);
    for (let i = 0; i < 5_000; i++) buckets.take(`key-${i}`);
    expect(buckets.size).toBe(5_000);
    for (let i = 0; i < 10; i++) buckets.take("busy");
    now = 9_999;
    buckets.take("busy-2");
    expect(buckets.size).toBe(5_002);
    now = 10_001;
    buckets.take("late");
    // The 5,000 idle since 0 are gone; "busy" (used at 0) too; "busy-2" (used at 9,999) is kept.
    expect(buckets.size).toBe(2);
    // A dropped bucket is a full one: nothing was lost by dropping it.
    for (let i = 0; i < 10; i++) expect(buckets.take("key-1")).toBe(0);
    expect(buckets.take("key-1")).toBeGreaterThan(0);
  });

  it("drops the least recently used bucket past its cap, however fast keys come", () => {
    const buckets = new TokenBuckets(1, 10, 1_000, () => 0);
    for (let i = 0; i < 50_000; i++) buckets.take(`key-${i}`);
    expect(buckets.size).toBe(1_000);
  });

  it("charges a cost, answers the seconds to wait, and takes nothing from a refused request", () => {
    let now = 0;
    const buckets = new TokenBuckets(10, 100, 10, () => now);
    expect(buckets.take("co", 80)).toBe(0);
    expect(buckets.take("co", 30)).toBe(1); // 20 left, 10 missing at 10/s
    expect(buckets.take("co", 20)).toBe(0);
    now = 3_000;
    expect(buckets.take("co", 500)).toBe(7); // more than the burst costs the whole burst: 70 missing
  });
});

describe("sign-in limiter: the address first, then the account (docs/decisions.md, Bounded input)", () => {
  it("stores nothing for the accounts an address names once that address is over its limit", () => {
    const limiter = new SignInLimiter();
    let refused = 0;
    for (let i = 0; i < 5_000; i++) {
      try {
        limiter.take(`user-${i}@example.test`, "198.51.100.7");
      } catch (error) {
        expect(error).toBeInstanceOf(ApiError);
        expect((error as ApiError).headers["retry-after"]).toMatch(/^[1-9][0-9]*$/);
        refused++;
      }
    }
    expect(refused).toBe(5_000 - 50);
    expect(limiter.size).toEqual({ addresses: 1, emails: 50 });
  });

  it("still limits one account tried from many addresses", () => {
    const limiter = new SignInLimiter();
    const outcomes = Array.from({ length: 11 }, (_, i) => {
      try {
        limiter.take(" Owner@Example.test ", `198.51.100.${i + 1}`);
        return "taken";
      } catch {
        return "refused";
      }
    });
    expect(outcomes.filter((o) => o === "refused")).toHaveLength(1);
  });
});

describe("client address for the limiters (docs/configuration.md, Client addresses)", () => {
  const header = (value: string | undefined) => (name: string) => (name === "x-forwarded-for" ? value : undefined);

  it("is the peer without a trusted proxy, whatever the header says", () => {
    const client = clientAddressResolver(null);
    expect(client("198.51.100.7", header("203.0.113.1"))).toBe("198.51.100.7");
    expect(client("::ffff:198.51.100.7", header(undefined))).toBe("198.51.100.7");
    expect(client(undefined, header(undefined))).toBe("unknown");
  });

  it("is the right-most address a trusted proxy's header names that is not a trusted proxy itself", () => {
    const client = clientAddressResolver({ ranges: ["10.0.0.0/8", "127.0.0.1"], header: "x-forwarded-for" });
    expect(client("127.0.0.1", header("203.0.113.1, 198.51.100.7"))).toBe("198.51.100.7");
    expect(client("127.0.0.1", header("203.0.113.1, 198.51.100.7, 10.1.2.3"))).toBe("198.51.100.7");
    // A peer that is not a trusted proxy is the client, whatever it wrote.
    expect(client("198.51.100.9", header("203.0.113.1"))).toBe("198.51.100.9");
    // A header with no address in it leaves the proxy's own.
    expect(client("127.0.0.1", header("not-an-address"))).toBe("127.0.0.1");
    expect(client("127.0.0.1", header(undefined))).toBe("127.0.0.1");
  });

  it("keys an IPv6 client by its /64", () => {
    const client = clientAddressResolver({ ranges: ["::1"], header: "x-forwarded-for" });
    expect(client("::1", header("2001:db8:1:2:aaaa::1"))).toBe("2001:db8:1:2::/64");
    expect(client("::1", header("2001:db8:1:2:ffff:ffff:ffff:ffff"))).toBe("2001:db8:1:2::/64");
    expect(client("2001:db8:1:3::5", header(undefined))).toBe("2001:db8:1:3::/64");
  });
});
