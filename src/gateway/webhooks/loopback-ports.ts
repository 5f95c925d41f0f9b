import { isIP } from "node:net";
import { classifyAddress } from "../../net/index.js";
import { normaliseHost } from "../../net/policy.js";

/**
 * Which local ports a sandbox-mode tenant's webhooks may reach (docs/decisions.md, "Loopback webhook targets"): every
 * port while the gateway itself listens on loopback only (one developer's machine: the tenants are that developer),
 * otherwise only the ports the operator lists (`WEBHOOK_LOOPBACK_PORTS`) — a gateway others can reach must not let
 * them probe the host's Redis, database or the gateway's own port and read the answers in the delivery log.
 */
export function loopbackWebhookPorts(listenHost: string, listed: readonly number[]): "any" | readonly number[] {
  const host = normaliseHost(listenHost);
  const loopback = host === "localhost" || (isIP(host) !== 0 && classifyAddress(host) === "loopback");
  return loopback ? "any" : listed;
}
