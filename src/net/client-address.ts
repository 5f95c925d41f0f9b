import { type Cidr, cidrContains, type Ip, parseCidr, parseIp, unmapIpv4 } from "./ip.js";

/** Where the gateway stands behind a reverse proxy: the proxies' addresses, and the header each puts the client in. */
export interface TrustedProxy {
  /** Addresses or CIDR ranges (`10.0.0.0/8`, `fd00::/8`, `127.0.0.1`). */
  ranges: string[];
  /** Lower-case header name, e.g. `x-forwarded-for`. */
  header: string;
}

/** Reads a request's header by its lower-case name. */
export type HeaderReader = (name: string) => string | undefined;

/**
 * Who a request comes from, as the rate limiters key it (docs/configuration.md, "Client addresses"): the peer's address,
 * or — only when the peer is a configured trusted proxy — the address in that proxy's header: of a list
 * (`x-forwarded-for`, where each proxy appends what it saw) the right-most that is not a trusted proxy itself, since
 * anything left of it was written by the client. A header that holds no address leaves the proxy's own. An IPv6
 * client is keyed by its /64: one host is commonly given a whole /64, so its other addresses are not other clients.
 */
export function clientAddressResolver(
  proxy: TrustedProxy | null,
): (peer: string | undefined, header: HeaderReader) => string {
  const trusted = proxyRanges(proxy);
  return (peer, header) => {
    const peerIp = peer === undefined ? undefined : parseIp(peer);
    if (!peerIp) return peer ?? "unknown";
    let client = unmapIpv4(peerIp);
    if (proxy && trusted(client)) {
      const hops = (header(proxy.header) ?? "").split(",");
      for (let i = hops.length - 1; i >= 0; i--) {
        const hop = parseIp((hops[i] ?? "").trim());
        if (!hop) break;
        client = unmapIpv4(hop);
        if (!trusted(client)) break;
      }
    }
    return addressKey(client);
  };
}

/**
 * Whether a peer is one of the configured trusted proxies, whose word on the request (the client's address, the scheme
 * it came over) is believed; with no proxy configured, nobody's is.
 */
export function trustedPeerCheck(proxy: TrustedProxy | null): (peer: string | undefined) => boolean {
  const trusted = proxyRanges(proxy);
  return (peer) => {
    const ip = peer === undefined ? undefined : parseIp(peer);
    return ip !== undefined && trusted(unmapIpv4(ip));
  };
}

function proxyRanges(proxy: TrustedProxy | null): (ip: Ip) => boolean {
  const ranges = (proxy?.ranges ?? []).map((text) => {
    const cidr = parseCidr(text.trim());
    if (!cidr) throw new Error(`not an address or CIDR range: ${text}`);
    return cidr;
  });
  return (ip) => ranges.some((cidr: Cidr) => cidrContains(cidr, ip));
}

/** An IPv4 address as written; an IPv6 address as its /64 (`2001:db8:1:2::/64`). */
export function addressKey(ip: Ip): string {
  if (ip.family === 4) {
    const v = Number(ip.value);
    return `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
  }
  const groups = [48n, 32n, 16n, 0n].map((shift) => ((ip.value >> (64n + shift)) & 0xffffn).toString(16));
  return `${groups.join(":")}::/64`;
}
