import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";

/**
 * Whether the request came over https: the connection's own scheme (TLS terminated by this process), or — only when
 * the peer is a trusted proxy (TRUSTED_PROXIES, the setting the client address is read with) — the first
 * `x-forwarded-proto` a TLS-terminating proxy set. From anyone else the header is the client's word and is ignored.
 * (docs/decisions.md, "Owner sign-in".)
 */
export function cameOverHttps(c: Context, fromTrustedProxy: (peer: string | undefined) => boolean): boolean {
  if (new URL(c.req.url).protocol === "https:") return true;
  if (!fromTrustedProxy(peerAddress(c))) return false;
  const forwarded = c.req.header("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
  return forwarded === "https";
}

/** The socket's peer; none when the app runs without a socket (`app.request`). */
function peerAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}
