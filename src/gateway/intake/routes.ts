import type { OpenAPIHono } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import type { Context, MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { submissions } from "../../db/schema/index.js";
import type { AppEnv } from "../../http/app.js";
import { notFound } from "../../http/errors.js";
import { readJson } from "../../http/json-body.js";
import { requestHeader, setResponseHeader } from "../../http/node-headers.js";
import { keyPrefix } from "../../log.js";
import type { GatewayContext } from "../context.js";
import { acceptSubmission, assertScope } from "./accept-submission.js";
import { authenticateVendorKey, type VendorKey } from "./authenticate-vendor-key.js";
import { IntakeLimiter } from "./intake-limiter.js";
import { waitSeconds } from "./prefer-wait.js";
import { submissionView } from "./submission-view.js";

export type IntakeEnv = AppEnv<{ vendorKey: VendorKey }>;

/**
 * The vendor-facing intake on the Inbound API's own paths (§4.2), so a vendor's client needs only a new base URL and
 * key. Pipeline: auth → scope → 1 MB → JSON → map → validate → commit → 202.
 */
export function intakeRoutes(app: OpenAPIHono<IntakeEnv>, ctx: GatewayContext): void {
  const limiter = new IntakeLimiter(ctx.settings.intakeLimit.ratePerSecond, ctx.settings.intakeLimit.burst);

  const authenticate = (c: Context<IntakeEnv>): VendorKey => {
    const header = requestHeader(c, "x-api-key");
    if (header) c.set("keyPrefix", keyPrefix(header));
    const key = authenticateVendorKey(ctx, header);
    limiter.take(key.id);
    c.set("vendorKey", key);
    return key;
  };
  const auth: MiddlewareHandler<IntakeEnv> = async (c, next) => {
    authenticate(c);
    await next();
  };

  documentIntake(app);
  for (const kind of ["lead", "appointment"] as const) {
    const path = kind === "lead" ? "/api/inbound/leads" : "/api/inbound/appointments";
    // One handler rather than a chain of middlewares: each link of Hono's chain is an async function and a promise,
    // and this is the path every vendor request takes.
    app.post(path, async (c) => {
      const key = authenticate(c);
      assertScope(key, kind);
      const { text, body } = await readJson(c);
      const result = await acceptSubmission({
        ctx,
        key,
        input: { kind, raw: text, payload: body, idempotencyHeader: requestHeader(c, "idempotency-key") },
      });
      const { submissionId } = result.submission;
      setResponseHeader(c, "location", `/api/inbound/submissions/${submissionId}`);
      setResponseHeader(c, "x-submission-id", submissionId);
      if (result.replay) return c.json(result.submission, 200);
      const wait = waitSeconds(requestHeader(c, "prefer"), key.responseMode);
      const settled = wait > 0 && ctx.forwarding ? await ctx.forwarding.waitFor(submissionId, wait * 1000) : undefined;
      if (settled) {
        // The upstream's own answer, so a client written for the Inbound API keeps working (§4.2).
        setResponseHeader(c, "preference-applied", `wait=${wait}`);
        if (settled.status === "forwarded") {
          return c.json(settled.result ?? {}, (settled.upstreamStatus ?? 200) as ContentfulStatusCode);
        }
        const status = (
          settled.upstreamStatus && settled.upstreamStatus >= 400 ? settled.upstreamStatus : 502
        ) as ContentfulStatusCode;
        return c.json({ error: settled.lastError ?? "forwarding failed", submissionId }, status);
      }
      return c.json({ submissionId, status: "queued" }, 202);
    });
  }

  // A vendor key sees only its own submissions; anything else is a 404 that does not confirm existence (§7).
  app.get("/api/inbound/submissions/:submissionId", auth, (c) => {
    const row = ctx.db
      .select()
      .from(submissions)
      .where(and(eq(submissions.id, c.req.param("submissionId")), eq(submissions.vendorKeyId, c.get("vendorKey").id)))
      .get();
    if (!row) throw notFound();
    return c.json(submissionView(row));
  });
}

/** The intake routes read raw bytes themselves (no second parse), so they are registered in the document by hand. */
function documentIntake(app: OpenAPIHono<IntakeEnv>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "vendorKey", {
    type: "apiKey",
    in: "header",
    name: "x-api-key",
  });
  const accepted = {
    description: "accepted and queued; Location names the submission",
    content: {
      "application/json": {
        schema: {
          type: "object" as const,
          properties: { submissionId: { type: "string" as const }, status: { type: "string" as const } },
        },
      },
    },
  };
  const errors = {
    400: { description: "the mapped body breaks a rule of §2.7/§2.8: {error, field, sourcePath?}" },
    401: { description: "missing, malformed, unknown or revoked key" },
    403: { description: "the key lacks the scope (named in the message)" },
    409: { description: "idempotency key reused with a different payload" },
    413: { description: "body over 1 MB" },
    415: { description: "not JSON" },
    422: { description: "the mapping profile broke a guardrail (time, depth, size)" },
    429: { description: "the key's intake limit; see retry-after" },
  };
  for (const [path, what] of [
    ["/api/inbound/leads", "a lead (§2.7), in the vendor's native shape; optional Idempotency-Key header"],
    ["/api/inbound/appointments", "an appointment (§2.8), in the vendor's native shape"],
  ] as const) {
    app.openAPIRegistry.registerPath({
      method: "post",
      path,
      summary: `Submit ${what}`,
      tags: ["intake"],
      security: [{ vendorKey: [] }],
      request: { body: { content: { "application/json": { schema: { type: "object" } } }, required: true } },
      responses: { 200: { description: "replay of an earlier identical request" }, 202: accepted, ...errors },
    });
  }
  app.openAPIRegistry.registerPath({
    method: "get",
    path: "/api/inbound/submissions/{submissionId}",
    summary: "Status of one of this key's submissions",
    tags: ["intake"],
    security: [{ vendorKey: [] }],
    responses: { 200: { description: "the submission" }, 404: { description: "not one of this key's submissions" } },
  });
}
