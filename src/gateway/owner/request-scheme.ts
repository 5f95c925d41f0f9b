import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";

/**
 * Whether the request came over https: the connection's own scheme (TLS terminated by this process), or — only when
 * the peer is one of `trustedProxies` — the first `x-forwarded-proto` a TLS-terminating proxy set. From anyone else
 * the header is the client's word and is ignored. (The trusted-proxy setting is the one the client address is read
 * with; docs/decisions.md, "Owner sign-in".)
 */
export function cameOverHttps(c: Context, trustedProxies: readonly string[]): boolean {
  if (new URL(c.req.url).protocol === "https:") return true;
  if (trustedProxies.length === 0) return false;
  const peer = peerAddress(c);
  if (peer === undefined || !trustedProxies.includes(peer)) return false;
  const forwarded = c.req.header("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
  return forwarded === "https";
}

/** The socket's peer, IPv4-mapped IPv6 as plain IPv4; none when the app runs without a socket (`app.request`). */
function peerAddress(c: Context): string | undefined {
  try {
    const address = getConnInfo(c).remote.address;
    return address?.startsWith("::ffff:") ? address.slice(7) : address;
  } catch {
    return undefined;
  }
}
