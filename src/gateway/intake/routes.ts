import { z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { notFound } from "../../http/errors.js";
import { readIncoming, readRequestBody } from "../../http/json-body.js";
import { nodeHeader, requestHeader, setResponseHeader } from "../../http/node-headers.js";
import type { GatewayApp, GatewayEnv } from "../app-env.js";
import type { GatewayContext } from "../context.js";
import { submissionStatusView } from "../storage/submissions/index.js";
import { admitVendorKey, answerIntake } from "./answer-intake.js";
import { answersOf, type IntakeOperation } from "./intake-answers.js";
import { IntakeLimiter } from "./intake-limiter.js";

export const INTAKE_PATHS = { lead: "/api/inbound/leads", appointment: "/api/inbound/appointments" } as const;

/**
 * The vendor-facing intake on the Inbound API's own paths (§4.2). The two submission paths are the gateway's hot path:
 * under Node they are Node routes (src/http/node-routes.ts), answered without Hono's per-request objects; the Hono
 * routes answer the same way wherever the app runs without Node's server (`app.request()`). Both run answerIntake().
 */
export function intakeRoutes(app: GatewayApp, ctx: GatewayContext): void {
  const limiter = new IntakeLimiter(ctx.settings.intakeLimit.ratePerSecond, ctx.settings.intakeLimit.burst);

  documentIntake(app);
  for (const kind of ["lead", "appointment"] as const) {
    const path = INTAKE_PATHS[kind];
    app.nodeRoutes.add({
      method: "POST",
      path,
      handle: (incoming, line) =>
        answerIntake({
          ctx,
          limiter,
          // Methods, not arrow functions (D-382).
          request: {
            kind,
            header(name) {
              return nodeHeader(incoming, name);
            },
            read(maxBytes) {
              return readIncoming(incoming, maxBytes);
            },
            onKey(prefix) {
              line.key = prefix;
            },
          },
        }),
    });
    app.post(path, async (c) => {
      const answer = await answerIntake({
        ctx,
        limiter,
        request: {
          kind,
          header: (name) => requestHeader(c, name),
          read: (maxBytes) => readRequestBody(c, maxBytes),
          onKey: (prefix) => c.set("keyPrefix", prefix),
        },
      });
      for (const [name, value] of Object.entries(answer.headers)) setResponseHeader(c, name, value);
      return c.json(answer.body as object, answer.status as ContentfulStatusCode);
    });
  }

  const auth: MiddlewareHandler<GatewayEnv> = async (c, next) => {
    const admitted = admitVendorKey(ctx, limiter, requestHeader(c, "x-api-key"), (prefix) =>
      c.set("keyPrefix", prefix),
    );
    const key = admitted instanceof Promise ? await admitted : admitted;
    c.set("vendorKey", key);
    await next();
  };

  // A vendor key sees only its own submissions; anything else is a 404 that does not confirm existence (§7).
  app.get("/api/inbound/submissions/:submissionId", auth, async (c) => {
    const submissionId = c.req.param("submissionId");
    if (submissionId.startsWith("cap_")) {
      // D-315: what a key in capture mode stored, named as its accept named it.
      const captured = await ctx.captures.getOfKey(submissionId, c.get("vendorKey").id);
      if (!captured) throw notFound();
      return c.json({ submissionId, status: "captured" });
    }
    const row = await ctx.submissions.getOfVendorKey(submissionId, c.get("vendorKey").id);
    if (!row) throw notFound();
    return c.json(submissionStatusView(row));
  });
}

/**
 * The intake routes read raw bytes themselves (no second parse), so they are registered in the document by hand: every
 * answer of the intake's catalogue (intake-answers.ts, D-327), each with its body's schema.
 */
function documentIntake(app: GatewayApp): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "vendorKey", {
    type: "apiKey",
    in: "header",
    name: "x-api-key",
  });
  const responses = (operation: IntakeOperation) =>
    Object.fromEntries(
      answersOf(operation).map((answer) => [
        answer.status,
        {
          description: answer.waited ? `${answer.when} (a waited-for request only)` : answer.when,
          content: { "application/json": { schema: answer.body(operation) } },
        },
      ]),
    );
  for (const [kind, what] of [
    ["lead", "a lead (§2.7), in the vendor's native shape; optional Idempotency-Key header"],
    ["appointment", "an appointment (§2.8), in the vendor's native shape"],
  ] as const) {
    app.openAPIRegistry.registerPath({
      method: "post",
      path: INTAKE_PATHS[kind],
      summary: `Submit ${what}`,
      tags: ["intake"],
      security: [{ vendorKey: [] }],
      request: { body: { content: { "application/json": { schema: { type: "object" } } }, required: true } },
      responses: responses(kind),
    });
  }
  app.openAPIRegistry.registerPath({
    method: "get",
    path: "/api/inbound/submissions/{submissionId}",
    summary: "Status of one of this key's submissions",
    tags: ["intake"],
    security: [{ vendorKey: [] }],
    request: { params: z.object({ submissionId: z.string() }) },
    responses: responses("status"),
  });
}
