import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { API_VERSION } from "../../../contract/api-version.js";
import { authorize } from "../../auth/authorize.js";
import { callerCtx, type SandboxEnv } from "../../env.js";
import { answerWrite } from "../idempotency/answer-write.js";
import { idempotent } from "../idempotency/idempotent.js";
import type { InFlightKeys } from "../idempotency/in-flight.js";
import { postStatusEvent } from "../services/post-status-event.js";
import { readInstallerJob } from "../services/read-job.js";
import { writeAssignments } from "../services/write-assignments.js";
import { writeSchedule } from "../services/write-schedule.js";
import {
  assignmentWriteSchema,
  idempotencyHeaders,
  installerErrors,
  jobIdParamSchema,
  scheduleWriteSchema,
  statusEventSchema,
  writeErrors,
} from "./schemas.js";

const read = createRoute({
  method: "get",
  path: "/api/partner/v1/jobs/{job_id}",
  summary: "One job assigned to the caller's company: {apiVersion, resource} (§4.1)",
  middleware: [authorize("installer-company", "jobs:read")] as const,
  request: { params: jobIdParamSchema },
  responses: { 200: { description: "{apiVersion, resource: job}" }, ...installerErrors },
});

const body = <T>(schema: T) => ({ content: { "application/json": { schema } }, required: true });

export function jobRoutes(app: OpenAPIHono<SandboxEnv>, inFlight: InFlightKeys): void {
  const statusEvents = createRoute({
    method: "post",
    path: "/api/partner/v1/jobs/{job_id}/status-events",
    summary: "Post a status event (§2.3, §3.1); header Idempotency-Key",
    middleware: [authorize("installer-company", "jobs:status:write"), idempotent(inFlight)] as const,
    request: { params: jobIdParamSchema, headers: idempotencyHeaders, body: body(statusEventSchema) },
    responses: { 201: { description: "{apiVersion, resource: job with the new version}" }, ...writeErrors },
  });
  const schedule = createRoute({
    method: "put",
    path: "/api/partner/v1/jobs/{job_id}/schedule",
    summary: "Replace the schedule (§2.4, §3.2); header Idempotency-Key",
    middleware: [authorize("installer-company", "jobs:schedule:write"), idempotent(inFlight)] as const,
    request: { params: jobIdParamSchema, headers: idempotencyHeaders, body: body(scheduleWriteSchema) },
    responses: { 200: { description: "{apiVersion, resource: job with the new version}" }, ...writeErrors },
  });
  const assignments = createRoute({
    method: "put",
    path: "/api/partner/v1/jobs/{job_id}/technician-assignments",
    summary: "Replace the technician assignment set (§2.5); header Idempotency-Key",
    middleware: [authorize("installer-company", "jobs:assignment:write"), idempotent(inFlight)] as const,
    request: { params: jobIdParamSchema, headers: idempotencyHeaders, body: body(assignmentWriteSchema) },
    responses: { 200: { description: "{apiVersion, resource: job with the new version}" }, ...writeErrors },
  });

  app.openapi(read, (c) => {
    const resource = readInstallerJob({ ctx: callerCtx(c), input: { jobId: c.req.valid("param").job_id } });
    return c.json({ apiVersion: API_VERSION, resource }, 200);
  });
  app.openapi(statusEvents, (c) => {
    const input = { jobId: c.req.valid("param").job_id, ...c.req.valid("json") };
    return answerWrite(c, 201, (ctx) => postStatusEvent({ ctx, input }));
  });
  app.openapi(schedule, (c) => {
    const input = { jobId: c.req.valid("param").job_id, ...c.req.valid("json") };
    return answerWrite(c, 200, (ctx) => writeSchedule({ ctx, input }));
  });
  app.openapi(assignments, (c) => {
    const input = { jobId: c.req.valid("param").job_id, ...c.req.valid("json") };
    return answerWrite(c, 200, (ctx) => writeAssignments({ ctx, input }));
  });
}
