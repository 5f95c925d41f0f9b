import { isIPv4, isIPv6 } from "node:net";

/** An IP address as a number, so ranges compare exactly whatever notation the address came in. */
export interface Ip {
  family: 4 | 6;
  value: bigint;
}

export interface Cidr extends Ip {
  prefix: number;
}

const BITS = { 4: 32n, 6: 128n } as const;

/** Parses an IPv4 or IPv6 literal (brackets and an IPv6 zone id are accepted); undefined for anything else. */
export function parseIp(text: string): Ip | undefined {
  const address = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (isIPv4(address)) return { family: 4, value: ipv4Value(address) };
  if (isIPv6(address)) return { family: 6, value: ipv6Value(address.split("%")[0] ?? "") };
  return undefined;
}

/** `10.0.0.0/8`, `fc00::/7`, or a bare address (a /32 or /128). Undefined when malformed. */
export function parseCidr(text: string): Cidr | undefined {
  const [address, prefixText, ...rest] = text.split("/");
  if (address === undefined || rest.length > 0) return undefined;
  const ip = parseIp(address);
  if (!ip) return undefined;
  const max = Number(BITS[ip.family]);
  const prefix = prefixText === undefined ? max : /^[0-9]{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
  if (!(prefix >= 0 && prefix <= max)) return undefined;
  return { ...ip, prefix };
}

export function cidrContains(cidr: Cidr, ip: Ip): boolean {
  if (cidr.family !== ip.family) return false;
  const shift = BITS[ip.family] - BigInt(cidr.prefix);
  return ip.value >> shift === cidr.value >> shift;
}

/** The low 32 bits as an IPv4 address: the embedded address of mapped and NAT64 forms. */
export function embeddedIpv4(ip: Ip, shift = 0n): Ip {
  return { family: 4, value: (ip.value >> shift) & 0xffff_ffffn };
}

/** `::ffff:a.b.c.d` is a.b.c.d on a dual-stack socket: compare it as the IPv4 address it is. */
export function unmapIpv4(ip: Ip): Ip {
  return ip.family === 6 && ip.value >> 32n === 0xffffn ? embeddedIpv4(ip) : ip;
}

function ipv4Value(address: string): bigint {
  return address.split(".").reduce((acc, octet) => (acc << 8n) | BigInt(octet), 0n);
}

/** Expands `::` and a trailing dotted IPv4 part; the input has passed `isIPv6`. */
function ipv6Value(address: string): bigint {
  let text = address;
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".")) {
    const v4 = ipv4Value(text.slice(lastColon + 1));
    text = `${text.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill("0");
  return [...left, ...zeros, ...right].reduce((acc, group) => (acc << 16n) | BigInt(`0x${group}`), 0n);
}
