import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { HonoAdapter } from "@bull-board/hono";
import { serveStatic } from "@hono/node-server/serve-static";
import { Queue } from "bullmq";
import type { Hono, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { Redis } from "ioredis";
import type { AppEnv } from "../../http/app.js";
import { bodyLimit, OWNER_BODY } from "../../http/body-limit.js";
import type { GatewayContext } from "../context.js";
import { DEFAULT_PREFIX, forwardingKeys } from "../forwarding/redis/keys.js";
import { SESSION_COOKIE } from "../owner/owner-auth.js";
import { authenticateOwner } from "../tenants/owner-auth.js";

export const QUEUE_DASHBOARD_PATH = "/console/queues";

const DASHBOARD_CSP = [
  "default-src 'self'",
  // bull-board's page boots with an inline script and inline styles.
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * The BullMQ queues hold every company's jobs, so only an admin of the gateway's operator company may see them.
 * Anyone else (no session, a viewer, another company's admin) gets the same 404 as a path that does not exist.
 * bull-board's own UI sends no CSRF token: its mutations are accepted only from this origin (the session cookie is
 * SameSite=Strict too).
 */
export function operatorOnly(ctx: GatewayContext, operatorCompanyId: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const token = getCookie(c, SESSION_COOKIE);
    let allowed = false;
    if (token) {
      try {
        const owner = await authenticateOwner({ ctx, token });
        allowed = owner.kind === "session" && owner.role === "admin" && owner.companyId === operatorCompanyId;
      } catch {
        allowed = false;
      }
    }
    if (allowed && !["GET", "HEAD"].includes(c.req.method)) {
      const origin = c.req.header("origin");
      const site = c.req.header("sec-fetch-site");
      allowed = site === "same-origin" || (origin !== undefined && origin === new URL(c.req.url).origin);
    }
    if (!allowed) return c.json({ error: "not found" }, 404);
    c.header("content-security-policy", DASHBOARD_CSP);
    c.header("x-frame-options", "DENY");
    await next();
  };
}

/** Mounts bull-board over `queues` at /console/queues, behind `operatorOnly`. */
export function mountQueueDashboard<E extends AppEnv>(
  app: Hono<E>,
  ctx: GatewayContext,
  options: { queues: Queue[]; operatorCompanyId: string },
): void {
  const adapter = new HonoAdapter(serveStatic);
  createBullBoard({ queues: options.queues.map((q) => new BullMQAdapter(q)), serverAdapter: adapter });
  adapter.setBasePath(QUEUE_DASHBOARD_PATH);
  const guard = operatorOnly(ctx, options.operatorCompanyId);
  app.use(QUEUE_DASHBOARD_PATH, guard);
  app.use(`${QUEUE_DASHBOARD_PATH}/*`, guard);
  // bull-board reads the bodies of its few mutations itself: within the owner API's limit.
  app.use(`${QUEUE_DASHBOARD_PATH}/*`, bodyLimit(OWNER_BODY.maxBytes));
  app.route(QUEUE_DASHBOARD_PATH, adapter.registerPlugin() as unknown as Hono<AppEnv>);
}

/**
 * The forwarding driver's BullMQ queues, opened for the dashboard on a connection of their own (REDIS_URL and
 * REDIS_PREFIX, the same as the driver's).
 */
export function openForwardingQueues(redis: { url: string; prefix?: string }) {
  const prefix = redis.prefix ?? DEFAULT_PREFIX;
  const connection = new Redis(redis.url, { maxRetriesPerRequest: null, lazyConnect: true });
  connection.on("error", () => undefined); // reported by the forwarding driver's own connections
  const queues = [new Queue(forwardingKeys(prefix).sendQueue, { connection, prefix })];
  return {
    queues,
    async close() {
      await Promise.all(queues.map((q) => q.close()));
      connection.disconnect();
    },
  };
}
