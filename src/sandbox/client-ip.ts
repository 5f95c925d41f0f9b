import type { Context } from "hono";

/**
 * §8: the network guards key on the source IP address — the TCP peer. `x-forwarded-for` is ignored: anyone could
 * send it, and a guard a client can pick its own key for guards nothing.
 */
export function clientIp(c: Context): string {
  const env: unknown = c.env;
  if (env && typeof env === "object" && "incoming" in env) {
    const incoming: unknown = env.incoming;
    if (incoming && typeof incoming === "object" && "socket" in incoming) {
      const socket = incoming.socket as { remoteAddress?: string } | undefined;
      const address = socket?.remoteAddress;
      if (address) return address.startsWith("::ffff:") ? address.slice(7) : address;
    }
  }
  // In-process requests (`app.request`) have no socket; they share one bucket.
  return "local";
}
