import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { jsonBody } from "../../../http/json-body.js";
import { authorize } from "../../auth/authorize.js";
import { callerCtx, type SandboxEnv } from "../../env.js";
import {
  appendedNoteSchema,
  errorSchema,
  inboundErrors,
  jobIdParamSchema,
  jobListSchema,
  jobNoteSchema,
  json,
  takeQuerySchema,
} from "../schemas.js";
import { appendJobNote } from "../services/append-job-note.js";
import { listJobs } from "../services/list-jobs.js";

const list = createRoute({
  method: "get",
  path: "/api/inbound/jobs",
  summary: "Sold jobs of the key's contractor record, newest change first (§2.9, §4.2)",
  middleware: [authorize("installer-contractor", "jobs:read")] as const,
  request: { query: takeQuerySchema },
  responses: { 200: json(jobListSchema, "the jobs"), ...inboundErrors },
});

const note = createRoute({
  method: "post",
  path: "/api/inbound/jobs/{job_id}/status",
  summary: "Append a timestamped installer note (§4.2)",
  middleware: [authorize("installer-contractor", "jobs:status:write"), jsonBody()] as const,
  request: {
    params: jobIdParamSchema,
    body: { content: { "application/json": { schema: jobNoteSchema } }, required: true },
  },
  responses: {
    201: json(appendedNoteSchema, "the note as recorded and the job as it now reads"),
    404: json(errorSchema, "job outside the key's contractor record"),
    ...inboundErrors,
  },
});

export function jobRoutes(app: OpenAPIHono<SandboxEnv>): void {
  app.openapi(list, (c) => c.json({ jobs: listJobs({ ctx: callerCtx(c), input: c.req.valid("query") }) }, 200));
  app.openapi(note, (c) => {
    const input = { jobId: c.req.valid("param").job_id, note: c.req.valid("json").note };
    return c.json(appendJobNote({ ctx: callerCtx(c), input }), 201);
  });
}
