import { isIP } from "node:net";
import type { AddressKind } from "./address-ranges.js";
import {
  type CompiledPolicy,
  checkAddress,
  compilePolicy,
  isHostAllowListed,
  loopbackPortAllowed,
  normaliseHost,
  type OutboundPolicy,
} from "./policy.js";

export type UrlRefusal =
  | "invalid_url"
  | "too_long"
  | "scheme_not_allowed"
  | "credentials_in_url"
  | "fragment_not_allowed"
  | "port_not_allowed"
  | "host_not_allowed"
  | "address_not_allowed";

export type WebhookUrlCheck =
  | { ok: true; url: URL }
  | { ok: false; reason: UrlRefusal; message: string; addressKind?: AddressKind };

const MAX_URL_LENGTH = 2048;
/** Names that resolve to the cloud metadata service: refused by name too, for a clear message at creation. */
const METADATA_HOSTS = new Set(["metadata.google.internal", "metadata.goog", "instance-data.ec2.internal"]);

/**
 * Checks a subscription endpoint URL when it is created, and again before every delivery (SSRF, docs/webhooks-gateway.md; §6.4.4
 * leaves the rules open — they are in docs/webhooks.md). What it cannot see — the addresses a name resolves to — is
 * checked when the connection is made (src/net/guarded-lookup.ts).
 *
 * Ports: the default port, 80, 443 or 1024–65535. The ports below 1024 belong to other protocols (ssh, smtp, …) that a
 * signed JSON POST has no business reaching.
 */
export function validateWebhookUrl(input: string, policy: OutboundPolicy | CompiledPolicy): WebhookUrlCheck {
  const compiled = compilePolicy(policy);
  if (input.length > MAX_URL_LENGTH) return refuse("too_long", `must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return refuse("invalid_url", "is not an absolute URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return refuse("scheme_not_allowed", "must use https");
  }
  if (url.username !== "" || url.password !== "") {
    // Credentials in a URL end up in logs and in the owner console; the signature authenticates deliveries (§5.8).
    return refuse("credentials_in_url", "must not contain a user name or password");
  }
  if (input.includes("#")) return refuse("fragment_not_allowed", "must not contain a fragment");
  if (url.port !== "") {
    const port = Number(url.port);
    if (port !== 80 && port !== 443 && port < 1024) return refuse("port_not_allowed", `must not use port ${port}`);
  }

  const host = normaliseHost(url.hostname);
  const plaintext = url.protocol === "http:";
  const port = effectivePort(url);
  if (isIP(host) !== 0) {
    // An IP literal never goes through the resolver: this check is the connect-time check for it.
    const verdict = checkAddress(compiled, { address: host, plaintext, port });
    if (verdict.allowed) return { ok: true, url };
    if (plaintext && checkAddress(compiled, { address: host, plaintext: false, port }).allowed) {
      return refuse("scheme_not_allowed", httpMessage(compiled));
    }
    if (verdict.kind === "loopback" && compiled.mode === "sandbox") return loopbackRefused(compiled, port);
    const label = verdict.kind.replace("_", "-");
    return {
      ok: false,
      reason: "address_not_allowed",
      message: `must not point at a ${label} address`,
      addressKind: verdict.kind,
    };
  }
  if (METADATA_HOSTS.has(host)) return refuse("host_not_allowed", "must not name a cloud metadata service");
  const loopbackName = host === "localhost" || host.endsWith(".localhost");
  const listed = isHostAllowListed(compiled, host);
  if (loopbackName && compiled.mode === "live" && !listed) {
    return refuse("host_not_allowed", "must not name the local host in live mode");
  }
  if (loopbackName && !listed && !loopbackPortAllowed(compiled, port)) return loopbackRefused(compiled, port);
  if (plaintext && !(compiled.mode === "sandbox" && (loopbackName || listed))) {
    return refuse("scheme_not_allowed", httpMessage(compiled));
  }
  return { ok: true, url };
}

/** The URL's port, its scheme's default when it names none. */
export function effectivePort(url: URL): number {
  if (url.port !== "") return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

function loopbackRefused(policy: CompiledPolicy, port: number): WebhookUrlCheck {
  const listed = policy.loopbackPorts === "any" ? [] : [...policy.loopbackPorts].sort((a, b) => a - b);
  const allowed = listed.length > 0 ? ` (allowed: ${listed.join(", ")})` : "";
  return {
    ok: false,
    reason: "port_not_allowed",
    message: `must not point at the local host on port ${port}${allowed}`,
    addressKind: "loopback",
  };
}

function httpMessage(policy: CompiledPolicy): string {
  return policy.mode === "live"
    ? "must use https in live mode"
    : "must use https unless it points at the local host or an allow-listed host";
}

function refuse(reason: UrlRefusal, message: string): { ok: false; reason: UrlRefusal; message: string } {
  return { ok: false, reason, message };
}
