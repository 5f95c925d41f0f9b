import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { streamSSE } from "hono/streaming";
import { bodyLimit, OWNER_BODY } from "../../../http/body-limit.js";
import type { GatewayApp, GatewayEnv } from "../../app-env.js";
import type { GatewayContext } from "../../context.js";
import { SESSION_COOKIE } from "../../owner/owner-auth.js";
import { ROLE_EXTENSION, requireRole, valid } from "../../owner/route-kit.js";
import { id } from "../../owner/routes/common.schemas.js";
import { ownerError } from "../../owner/routes/errors.schemas.js";
import { sessionEnded } from "../../tenants/session-liveness.js";
import { SubmissionStreamHub } from "./hub.js";
import type { StreamLimits } from "./limits.js";
import { LiveStream } from "./live-stream.js";

export const PATH = "/owner/v1/streams/submissions";

export const streamQuery = z.object({
  keyId: id.optional(),
  kind: z.enum(["lead", "appointment"]).optional(),
});

const error = (description: string) => ({ description, content: { "application/json": { schema: ownerError } } });
/** The stream's events as text (the description names them). */
const events = z.string().openapi("SubmissionEventStream");

const streamRoute = createRoute({
  method: "get",
  path: PATH,
  summary: "The submission log, live: server-sent events of the company's new and changed submissions",
  description:
    "`event: ready` once the stream is open; then `event: submission` per new or changed submission (the log's row " +
    "shape), `: heartbeat` comments, and `event: end` with the reason when the session ends. At most 3 streams per " +
    "session (429). Changes are read from the database, so every process's writes appear (docs/decisions.md D-235).",
  tags: ["owner"],
  security: [{ bearer: [] }, { session: [] }],
  [ROLE_EXTENSION]: "viewer",
  middleware: [requireRole("viewer"), bodyLimit(OWNER_BODY.maxBytes)],
  request: { query: streamQuery },
  responses: {
    200: { description: "the event stream", content: { "text/event-stream": { schema: events } } },
    400: error("bad_request: invalid request"),
    401: error("unauthorized: no valid session or token"),
    413: error("payload_too_large: body over the route's limit"),
    429: error("rate_limited: this session has its maximum of streams open"),
    500: error("internal: a fault of the gateway"),
    503: error("unavailable: this process has its maximum of streams open"),
  },
});

/** The token that authenticated the request (ownerAuth accepted it): a stream checks it again while it runs. */
function presentedToken(c: Context<GatewayEnv>): string {
  const bearer = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
  return bearer ?? getCookie(c, SESSION_COOKIE) ?? "";
}

/**
 * The live submission log (D-235, D-237). Owner auth comes from the owner routes' middleware (registered first); the
 * stream carries the caller's company only. Returns the hub, whose limits tests may set.
 */
export function submissionStreamRoutes(
  app: GatewayApp,
  ctx: GatewayContext,
  limits: Partial<StreamLimits> = {},
): SubmissionStreamHub {
  const hub = new SubmissionStreamHub(ctx, limits);
  app.openapi(streamRoute, (c) => {
    const owner = c.get("owner");
    const filter = valid(c, streamQuery, "query");
    const token = presentedToken(c);
    let live: LiveStream | undefined;
    // Opened before the answer starts, so a refusal is still a 429 or 503.
    const close = hub.open(owner.companyId, owner.tokenId, { filter, deliver: (row) => live?.send(row) });
    return streamSSE(c, async (stream) => {
      live = new LiveStream(stream, hub.limits);
      stream.onAbort(() => live?.end(null));
      const checks = setInterval(async () => {
        const reason = await sessionEnded({ ctx, token }).catch(() => null);
        if (reason) live?.end(reason);
      }, hub.limits.sessionCheckMs);
      const heartbeats = setInterval(() => live?.heartbeat(), hub.limits.heartbeatMs);
      try {
        await live.ready();
        await live.ended;
      } finally {
        clearInterval(checks);
        clearInterval(heartbeats);
        close();
      }
    });
  });
  return hub;
}
