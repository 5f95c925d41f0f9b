import { describe, expect, it } from "vitest";
import { type AddressKind, checkAddress, classifyAddress, compilePolicy } from "../../src/net/index.js";

/** Each refused range with its first and last address where the boundary matters, and its public neighbours. */
const CASES: ReadonlyArray<readonly [string, AddressKind]> = [
  ["10.0.0.0", "private"],
  ["10.255.255.255", "private"],
  ["9.255.255.255", "public"],
  ["11.0.0.0", "public"],
  ["172.16.0.0", "private"],
  ["172.31.255.255", "private"],
  ["172.15.255.255", "public"],
  ["172.32.0.0", "public"],
  ["192.168.0.1", "private"],
  ["192.168.255.255", "private"],
  ["192.169.0.0", "public"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["169.254.0.1", "link_local"],
  ["169.254.255.255", "link_local"],
  ["100.64.0.0", "cgnat"],
  ["100.127.255.255", "cgnat"],
  ["100.63.255.255", "public"],
  ["100.128.0.0", "public"],
  ["169.254.169.254", "metadata"],
  ["169.254.170.2", "metadata"],
  ["168.63.129.16", "metadata"],
  ["100.100.100.200", "metadata"],
  ["192.0.0.192", "metadata"],
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "reserved"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.255", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "reserved"],
  ["192.0.0.8", "reserved"],
  ["192.0.2.1", "documentation"],
  ["198.51.100.1", "documentation"],
  ["203.0.113.1", "documentation"],
  ["198.18.0.1", "benchmarking"],
  ["198.19.255.255", "benchmarking"],
  ["198.20.0.0", "public"],
  ["192.88.99.1", "reserved"],
  ["8.8.8.8", "public"],
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["::ffff:10.0.0.1", "private"],
  ["::ffff:a00:1", "private"],
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:169.254.169.254", "metadata"],
  ["::ffff:8.8.8.8", "public"],
  ["::127.0.0.1", "reserved"],
  ["64:ff9b::10.0.0.1", "translated"],
  ["64:ff9b::127.0.0.1", "translated"],
  ["64:ff9b::169.254.169.254", "translated"],
  ["64:ff9b::8.8.8.8", "public"],
  ["64:ff9b:1::a00:1", "reserved"],
  ["2002:a00:1::1", "translated"],
  ["2002:808:808::1", "public"],
  ["fc00::1", "unique_local"],
  ["fdff:ffff::1", "unique_local"],
  ["fd00:ec2::254", "metadata"],
  ["fe80::1", "link_local"],
  ["fe80::1%eth0", "link_local"],
  ["febf::1", "link_local"],
  ["fec0::1", "reserved"],
  ["ff02::1", "multicast"],
  ["2001:db8::1", "documentation"],
  ["3fff::1", "documentation"],
  ["2001:2::1", "benchmarking"],
  ["2001::1", "reserved"],
  ["100::1", "reserved"],
  ["4000::1", "reserved"],
  ["2606:4700:4700::1111", "public"],
  ["2a00:1450:4001::1", "public"],
];

describe("SSRF guard: address ranges (docs/webhooks-gateway.md)", () => {
  it.each(CASES)("%s is %s", (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it("throws on something that is not an IP literal", () => {
    expect(() => classifyAddress("example.com")).toThrow(TypeError);
  });
});

describe("SSRF guard: policy by mode", () => {
  const live = compilePolicy({ mode: "live" });
  const sandbox = compilePolicy({ mode: "sandbox" });
  const check = (policy: typeof live, address: string, plaintext = false, hostname?: string) =>
    checkAddress(policy, { address, plaintext, hostname }).allowed;

  it("live allows public addresses over https and refuses every other kind", () => {
    for (const [address, kind] of CASES) expect(check(live, address), address).toBe(kind === "public");
  });

  it("live never allows plain http, not even to a public address", () => {
    expect(check(live, "8.8.8.8", true)).toBe(false);
  });

  it("sandbox also allows loopback (IPv4, IPv6 and IPv4-mapped) and nothing else that live refuses", () => {
    for (const [address, kind] of CASES)
      expect(check(sandbox, address), address).toBe(kind === "public" || kind === "loopback");
  });

  it("sandbox allows plain http only to loopback", () => {
    expect(check(sandbox, "127.0.0.1", true)).toBe(true);
    expect(check(sandbox, "::1", true)).toBe(true);
    expect(check(sandbox, "8.8.8.8", true)).toBe(false);
    expect(check(sandbox, "10.0.0.1", true)).toBe(false);
  });

  it("an allow-list opens CIDRs, single addresses and host names, over http too in sandbox", () => {
    const policy = compilePolicy({ mode: "sandbox", allowList: ["10.1.0.0/16", "192.168.5.5", "Receiver.Test."] });
    expect(check(policy, "10.1.2.3")).toBe(true);
    expect(check(policy, "::ffff:10.1.2.3")).toBe(true);
    expect(check(policy, "10.2.0.1")).toBe(false);
    expect(check(policy, "192.168.5.5", true)).toBe(true);
    expect(check(policy, "192.168.5.6")).toBe(false);
    expect(check(policy, "172.16.0.9", false, "receiver.test")).toBe(true);
    expect(check(policy, "172.16.0.9", false, "other.test")).toBe(false);
  });

  it("an allow-list opens addresses in live mode but never plain http", () => {
    const policy = compilePolicy({ mode: "live", allowList: ["127.0.0.1"] });
    expect(check(policy, "127.0.0.1")).toBe(true);
    expect(check(policy, "127.0.0.1", true)).toBe(false);
  });

  it("nothing opens cloud metadata or the unspecified address, not even an allow-list covering them", () => {
    const policy = compilePolicy({ mode: "sandbox", allowList: ["0.0.0.0/0", "::/0", "metadata.test"] });
    for (const address of ["169.254.169.254", "::ffff:169.254.169.254", "fd00:ec2::254", "0.0.0.0", "::"]) {
      expect(check(policy, address), address).toBe(false);
      expect(check(policy, address, false, "metadata.test"), address).toBe(false);
    }
    expect(check(policy, "10.0.0.1")).toBe(true);
  });

  it("refuses an allow-list entry that is neither a CIDR, an address nor a host name (configuration fails fast)", () => {
    expect(() => compilePolicy({ mode: "live", allowList: ["10.0.0.0/33"] })).toThrow(RangeError);
    expect(() => compilePolicy({ mode: "live", allowList: ["http://x"] })).toThrow(RangeError);
  });
});
