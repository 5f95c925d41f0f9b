import { describe, expect, it } from "vitest";
import { type OutboundPolicy, validateWebhookUrl } from "../../src/net/index.js";

const live: OutboundPolicy = { mode: "live" };
const sandbox: OutboundPolicy = { mode: "sandbox" };

const reasonOf = (url: string, policy: OutboundPolicy) => {
  const check = validateWebhookUrl(url, policy);
  return check.ok ? "ok" : check.reason;
};

describe("webhook URL rules at subscription creation (SSRF, docs/webhooks-gateway.md; §6.4.4 left open)", () => {
  it.each([
    "https://hooks.vendor.example/webhooks",
    "https://hooks.vendor.example:8443/in?tenant=1",
    "https://hooks.vendor.example:443/",
    "https://93.184.216.34/hook",
    "https://[2606:4700:4700::1111]/hook",
  ])("live accepts %s", (url) => {
    expect(reasonOf(url, live)).toBe("ok");
  });

  it.each([
    ["not a URL", "hooks.vendor.example/webhooks", "invalid_url"],
    ["a relative path", "/webhooks", "invalid_url"],
    ["ftp", "ftp://hooks.vendor.example/", "scheme_not_allowed"],
    ["javascript", "javascript:alert(1)", "scheme_not_allowed"],
    ["plain http in live mode", "http://hooks.vendor.example/", "scheme_not_allowed"],
    ["a user name and password", "https://user:pw@hooks.vendor.example/", "credentials_in_url"],
    ["a user name alone", "https://user@hooks.vendor.example/", "credentials_in_url"],
    ["a fragment", "https://hooks.vendor.example/#x", "fragment_not_allowed"],
    ["ssh's port", "https://hooks.vendor.example:22/", "port_not_allowed"],
    ["smtp's port", "https://hooks.vendor.example:25/", "port_not_allowed"],
    ["over 2048 characters", `https://hooks.vendor.example/${"a".repeat(2048)}`, "too_long"],
    ["localhost by name", "https://localhost/", "host_not_allowed"],
    ["a .localhost name", "https://app.localhost./", "host_not_allowed"],
    ["the GCP metadata name", "https://metadata.google.internal/computeMetadata/v1/", "host_not_allowed"],
  ])("live refuses %s", (_name, url, reason) => {
    expect(reasonOf(url, live)).toBe(reason);
  });

  it.each([
    ["a private IPv4 literal", "https://10.0.0.1/"],
    ["a loopback literal", "https://127.0.0.1/"],
    ["a loopback literal in decimal", "https://2130706433/"],
    ["a loopback literal in hex shorthand", "https://0x7f.1/"],
    ["the metadata literal", "https://169.254.169.254/latest/meta-data/"],
    ["the unspecified address", "https://0.0.0.0/"],
    ["IPv6 loopback", "https://[::1]/"],
    ["IPv4-mapped private", "https://[::ffff:10.0.0.1]/"],
    ["NAT64 of a private address", "https://[64:ff9b::192.168.0.1]/"],
    ["IPv6 unique-local", "https://[fd12:3456::1]/"],
    ["IPv6 link-local", "https://[fe80::1]/"],
    ["AWS IPv6 metadata", "https://[fd00:ec2::254]/"],
    ["CGNAT", "https://100.64.0.1/"],
  ])("refuses %s as an address not allowed", (_name, url) => {
    const check = validateWebhookUrl(url, live);
    expect(check).toMatchObject({ ok: false, reason: "address_not_allowed" });
    if (!check.ok) expect(check.message).toMatch(/^must not point at a [a-z-]+ address$/);
  });

  it("sandbox accepts plain http and https to loopback by address or by localhost name, on any high port", () => {
    for (const url of [
      "http://127.0.0.1:3000/hook",
      "http://localhost:8080/",
      "http://[::1]:9000/",
      "https://localhost:8443/",
    ]) {
      expect(reasonOf(url, sandbox), url).toBe("ok");
    }
  });

  it("sandbox still refuses plain http to anywhere else, and refuses metadata over any scheme", () => {
    expect(reasonOf("http://hooks.vendor.example/", sandbox)).toBe("scheme_not_allowed");
    expect(reasonOf("http://93.184.216.34/", sandbox)).toBe("scheme_not_allowed");
    expect(reasonOf("http://10.0.0.1/", sandbox)).toBe("address_not_allowed");
    expect(reasonOf("http://169.254.169.254/", sandbox)).toBe("address_not_allowed");
    expect(reasonOf("https://169.254.169.254/", sandbox)).toBe("address_not_allowed");
  });

  it("an allow-listed host or range may be used over http in sandbox mode", () => {
    const policy: OutboundPolicy = { mode: "sandbox", allowList: ["receiver.test", "10.9.0.0/16"] };
    expect(reasonOf("http://receiver.test:8080/", policy)).toBe("ok");
    expect(reasonOf("http://10.9.1.1:8080/", policy)).toBe("ok");
    expect(reasonOf("http://10.8.1.1:8080/", policy)).toBe("address_not_allowed");
  });

  it("returns the parsed URL when it accepts", () => {
    const check = validateWebhookUrl("https://Hooks.Vendor.Example/in", live);
    expect(check.ok && check.url.hostname).toBe("hooks.vendor.example");
  });
});
