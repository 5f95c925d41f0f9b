import { type Cidr, cidrContains, embeddedIpv4, type Ip, parseCidr, parseIp } from "./ip.js";

/**
 * What an address is, for the outbound webhook guard (SSRF, docs/webhooks-gateway.md). Everything but `public` is refused unless the
 * policy says otherwise (src/net/policy.ts). Ranges follow the IANA special-purpose registries plus the cloud
 * metadata endpoints, which are named on their own because no policy may ever reach them.
 */
export type AddressKind =
  | "public"
  | "metadata"
  | "unspecified"
  | "loopback"
  | "private"
  | "link_local"
  | "cgnat"
  | "unique_local"
  | "multicast"
  | "documentation"
  | "benchmarking"
  | "reserved"
  /** A NAT64 or 6to4 address wrapping a non-public IPv4 address. */
  | "translated";

type Table = ReadonlyArray<readonly [Cidr, AddressKind]>;

function range(text: string): Cidr {
  const cidr = parseCidr(text);
  if (!cidr) throw new Error(`bad range ${text}`);
  return cidr;
}

function table(rows: ReadonlyArray<readonly [string, AddressKind]>): Table {
  return rows.map(([text, kind]) => [range(text), kind] as const);
}

/** First match wins: the single metadata addresses come before the ranges that contain them. */
const IPV4 = table([
  ["169.254.169.254/32", "metadata"], // AWS, GCP, Azure, OpenStack instance metadata
  ["169.254.170.2/32", "metadata"], // AWS ECS task metadata
  ["168.63.129.16/32", "metadata"], // Azure wire server (a public address: only this list stops it)
  ["100.100.100.200/32", "metadata"], // Alibaba Cloud
  ["192.0.0.192/32", "metadata"], // Oracle Cloud
  ["0.0.0.0/32", "unspecified"], // connecting to it reaches the local host
  ["0.0.0.0/8", "reserved"], // "this network"
  ["10.0.0.0/8", "private"],
  ["100.64.0.0/10", "cgnat"],
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "link_local"],
  ["172.16.0.0/12", "private"],
  ["192.0.0.0/24", "reserved"], // IETF protocol assignments
  ["192.0.2.0/24", "documentation"],
  ["192.88.99.0/24", "reserved"], // deprecated 6to4 relay anycast
  ["192.168.0.0/16", "private"],
  ["198.18.0.0/15", "benchmarking"],
  ["198.51.100.0/24", "documentation"],
  ["203.0.113.0/24", "documentation"],
  ["224.0.0.0/4", "multicast"],
  ["240.0.0.0/4", "reserved"], // includes the broadcast address 255.255.255.255
]);

const IPV6 = table([
  ["fd00:ec2::254/128", "metadata"], // AWS instance metadata over IPv6
  ["::/128", "unspecified"],
  ["::1/128", "loopback"],
  ["::/8", "reserved"], // IPv4-compatible (deprecated), IPv4-translated and other ::/8 forms
  ["64:ff9b:1::/48", "reserved"], // local-use NAT64 (RFC 8215): the translator is someone's private network
  ["100::/64", "reserved"], // discard-only
  ["2001:2::/48", "benchmarking"],
  ["2001::/23", "reserved"], // IETF protocol assignments, Teredo included
  ["2001:db8::/32", "documentation"],
  ["3fff::/20", "documentation"],
  ["fc00::/7", "unique_local"],
  ["fe80::/10", "link_local"],
  ["fec0::/10", "reserved"], // deprecated site-local
  ["ff00::/8", "multicast"],
]);

const MAPPED = range("::ffff:0:0/96");
const NAT64 = range("64:ff9b::/96");
const SIX_TO_FOUR = range("2002::/16");
const GLOBAL_UNICAST = range("2000::/3");

/** Classifies an IP literal; throws on something that is not one (callers resolve names first). */
export function classifyAddress(address: string): AddressKind {
  const ip = parseIp(address);
  if (!ip) throw new TypeError(`not an IP address: ${address}`);
  return classifyIp(ip);
}

export function classifyIp(ip: Ip): AddressKind {
  if (ip.family === 4) return lookup(IPV4, ip) ?? "public";
  // An IPv4-mapped address is that IPv4 address to a dual-stack socket: it is exactly as dangerous.
  if (cidrContains(MAPPED, ip)) return classifyIp(embeddedIpv4(ip));
  // NAT64 and 6to4 reach the embedded IPv4 address through a translator: public only if that address is.
  if (cidrContains(NAT64, ip)) return translated(embeddedIpv4(ip));
  if (cidrContains(SIX_TO_FOUR, ip)) return translated(embeddedIpv4(ip, 80n));
  const listed = lookup(IPV6, ip);
  if (listed) return listed;
  // Everything outside global unicast is unassigned or special-purpose.
  return cidrContains(GLOBAL_UNICAST, ip) ? "public" : "reserved";
}

function translated(ipv4: Ip): AddressKind {
  return classifyIp(ipv4) === "public" ? "public" : "translated";
}

function lookup(rows: Table, ip: Ip): AddressKind | undefined {
  for (const [cidr, kind] of rows) if (cidrContains(cidr, ip)) return kind;
  return undefined;
}
