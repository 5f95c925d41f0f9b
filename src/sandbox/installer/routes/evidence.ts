import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { API_VERSION } from "../../../contract/api-version.js";
import { authorize } from "../../auth/authorize.js";
import { callerCtx, type SandboxEnv } from "../../env.js";
import { answerWrite } from "../idempotency/answer-write.js";
import { idempotent } from "../idempotency/idempotent.js";
import type { InFlightKeys } from "../idempotency/in-flight.js";
import { listEvidence, uploadEvidence } from "../services/evidence.js";
import { evidenceUploadSchema, idempotencyHeaders, installerErrors, jobIdParamSchema, writeErrors } from "./schemas.js";

const list = createRoute({
  method: "get",
  path: "/api/partner/v1/jobs/{job_id}/evidence",
  summary: "Completion evidence the caller uploaded for a job (§3.1 rule 4; not shown, §4.1 rule 8)",
  middleware: [authorize("installer-company", "jobs:read")] as const,
  request: { params: jobIdParamSchema },
  responses: { 200: { description: "{apiVersion, resources: [evidence]}" }, ...installerErrors },
});

export function evidenceRoutes(app: OpenAPIHono<SandboxEnv>, inFlight: InFlightKeys): void {
  const upload = createRoute({
    method: "post",
    path: "/api/partner/v1/jobs/{job_id}/evidence",
    summary: "Upload one completion photo or document (§3.1 rule 4 stand-in); header Idempotency-Key",
    middleware: [authorize("installer-company", "jobs:status:write"), idempotent(inFlight)] as const,
    request: {
      params: jobIdParamSchema,
      headers: idempotencyHeaders,
      body: { content: { "application/json": { schema: evidenceUploadSchema } }, required: true },
    },
    responses: {
      201: {
        description: "{apiVersion, resource: {id, jobId, kind, fileName, contentType, bytes, sha256, uploadedAt}}",
      },
      ...writeErrors,
    },
  });

  app.openapi(list, (c) => {
    const resources = listEvidence({ ctx: callerCtx(c), input: { jobId: c.req.valid("param").job_id } });
    return c.json({ apiVersion: API_VERSION, resources }, 200);
  });
  app.openapi(upload, (c) => {
    const input = { jobId: c.req.valid("param").job_id, ...c.req.valid("json") };
    return answerWrite(c, 201, (ctx) => uploadEvidence({ ctx, input }));
  });
}
