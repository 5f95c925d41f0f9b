import { type AddressKind, classifyIp } from "./address-ranges.js";
import { type Cidr, cidrContains, parseCidr, parseIp, unmapIpv4 } from "./ip.js";

/**
 * Where webhook deliveries may go (DESIGN "sandbox / live mode"). Live: https only, public addresses only. Sandbox:
 * also loopback, and plain http to loopback, so a vendor's local receiver works — on every port, or only on
 * `loopbackPorts` (the gateway's own rule when it does not listen on loopback itself: a tenant must not reach the
 * host's other services). `allowList` (CIDRs, addresses or host names) opens more for local testing; nothing ever
 * opens cloud metadata or the unspecified address.
 */
export interface OutboundPolicy {
  mode: "sandbox" | "live";
  allowList?: readonly string[];
  /** Sandbox mode's loopback destinations: every port (`"any"`, the default) or only these. */
  loopbackPorts?: "any" | readonly number[];
}

export interface CompiledPolicy {
  readonly mode: "sandbox" | "live";
  readonly allowCidrs: readonly Cidr[];
  readonly allowHosts: ReadonlySet<string>;
  readonly loopbackPorts: "any" | ReadonlySet<number>;
}

export type AddressVerdict = { allowed: true; kind: AddressKind } | { allowed: false; kind: AddressKind };

const HOST_NAME = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
/** No setting may reach these: the host's own credentials live behind metadata, and 0.0.0.0/:: reach the host. */
const NEVER: ReadonlySet<AddressKind> = new Set(["metadata", "unspecified"]);

/** Parses the allow-list once (fails fast on a bad entry: it is configuration). */
export function compilePolicy(policy: OutboundPolicy | CompiledPolicy): CompiledPolicy {
  if ("allowCidrs" in policy) return policy;
  const allowCidrs: Cidr[] = [];
  const allowHosts = new Set<string>();
  for (const entry of policy.allowList ?? []) {
    const cidr = parseCidr(entry);
    if (cidr) allowCidrs.push(unmapCidr(cidr));
    else if (HOST_NAME.test(normaliseHost(entry))) allowHosts.add(normaliseHost(entry));
    else throw new RangeError(`webhook allow-list entry is neither a CIDR, an address nor a host name: ${entry}`);
  }
  const loopbackPorts =
    policy.loopbackPorts === undefined || policy.loopbackPorts === "any" ? "any" : new Set(policy.loopbackPorts);
  return { mode: policy.mode, allowCidrs, allowHosts, loopbackPorts };
}

/** Whether sandbox mode lets a delivery reach the local host on `port` (undefined: not known, so only if any port). */
export function loopbackPortAllowed(policy: CompiledPolicy, port: number | undefined): boolean {
  return policy.loopbackPorts === "any" || (port !== undefined && policy.loopbackPorts.has(port));
}

/** `::ffff:10.0.0.0/104` is 10.0.0.0/8: addresses are unmapped before matching, so ranges are too. */
function unmapCidr(cidr: Cidr): Cidr {
  const ip = unmapIpv4(cidr);
  return ip.family === 4 && cidr.family === 6 && cidr.prefix >= 96 ? { ...ip, prefix: cidr.prefix - 96 } : cidr;
}

/** Lower case, no trailing dot, no IPv6 brackets: the form host names are compared in. */
export function normaliseHost(host: string): string {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  return bare.toLowerCase().replace(/\.$/, "");
}

export function isHostAllowListed(policy: CompiledPolicy, hostname: string): boolean {
  return policy.allowHosts.has(normaliseHost(hostname));
}

/**
 * Whether a connection to `address` (reached through `hostname`, on `port`) is allowed. `plaintext` is an http
 * connection: only sandbox mode, and only to loopback or allow-listed destinations, so no secret-signed body crosses
 * a network in clear.
 */
export function checkAddress(
  policy: CompiledPolicy,
  target: { address: string; hostname?: string; plaintext: boolean; port?: number },
): AddressVerdict {
  const parsed = parseIp(target.address);
  if (!parsed) return { allowed: false, kind: "reserved" };
  const ip = unmapIpv4(parsed);
  const kind = classifyIp(ip);
  if (NEVER.has(kind)) return { allowed: false, kind };
  const listed =
    policy.allowCidrs.some((cidr) => cidrContains(cidr, ip)) ||
    (target.hostname !== undefined && isHostAllowListed(policy, target.hostname));
  const sandboxLoopback = policy.mode === "sandbox" && kind === "loopback" && loopbackPortAllowed(policy, target.port);
  if (target.plaintext) return { allowed: policy.mode === "sandbox" && (sandboxLoopback || listed), kind };
  return { allowed: kind === "public" || listed || sandboxLoopback, kind };
}
