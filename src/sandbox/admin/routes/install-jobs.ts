import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { jsonBody } from "../../../http/json-body.js";
import type { SandboxEnv } from "../../env.js";
import type { SandboxAdmin } from "../sandbox-admin.js";
import {
  assignSchema,
  cancelSchema,
  jobScheduleSchema,
  jobScopeSchema,
  newDocumentSchema,
  newInstallJobSchema,
  newTechnicianSchema,
  readinessSchema,
  technicianUpdateSchema,
} from "./install-job-schemas.js";
import { idParam } from "./schemas.js";

const JOB = "/sandbox/admin/install-jobs/{job_id}";
const body = <T>(schema: T) => ({ body: { content: { "application/json": { schema } }, required: true } });
const job = { params: idParam("job_id") };
const answer = (status: 200 | 201) => ({ [status]: { description: "the job as the company sees it" } });

const create = createRoute({
  method: "post",
  path: "/sandbox/admin/install-jobs",
  summary: "Create an install job of a company, optionally assigned (§2.1)",
  middleware: [jsonBody()] as const,
  request: body(newInstallJobSchema),
  responses: answer(201),
});
const read = createRoute({
  method: "get",
  path: JOB,
  summary: "A job with everything the company holds on it",
  request: job,
  responses: answer(200),
});
const assign = createRoute({
  method: "post",
  path: `${JOB}/assign`,
  summary: "Assign to an installer company (install.job_assigned)",
  middleware: [jsonBody()] as const,
  request: { ...job, ...body(assignSchema) },
  responses: answer(200),
});
const unassign = createRoute({
  method: "post",
  path: `${JOB}/unassign`,
  summary: "Remove from its installer company (install.job_unassigned)",
  request: job,
  responses: answer(200),
});
const cancel = createRoute({
  method: "post",
  path: `${JOB}/cancel`,
  summary: "Cancel (install.job_cancelled)",
  middleware: [jsonBody()] as const,
  request: { ...job, ...body(cancelSchema) },
  responses: answer(200),
});
const scope = createRoute({
  method: "put",
  path: `${JOB}/scope`,
  summary: "Change the scope (install.scope_acknowledgement_required)",
  middleware: [jsonBody()] as const,
  request: { ...job, ...body(jobScopeSchema) },
  responses: answer(200),
});
const readiness = createRoute({
  method: "put",
  path: `${JOB}/readiness`,
  summary: "Set readiness blockers (install.readiness_changed)",
  middleware: [jsonBody()] as const,
  request: { ...job, ...body(readinessSchema) },
  responses: answer(200),
});
const schedule = createRoute({
  method: "put",
  path: `${JOB}/schedule`,
  summary: "Change the schedule (install.schedule_changed)",
  middleware: [jsonBody()] as const,
  request: { ...job, ...body(jobScheduleSchema) },
  responses: answer(200),
});
const accept = createRoute({
  method: "post",
  path: `${JOB}/completion/accept`,
  summary: "Accept the completion report (install.completion_received)",
  request: job,
  responses: answer(200),
});
const document = createRoute({
  method: "post",
  path: `${JOB}/documents`,
  summary: "Make a document available (install.document_available)",
  middleware: [jsonBody()] as const,
  request: { ...job, ...body(newDocumentSchema) },
  responses: { 201: { description: "the job and the new documentId" } },
});
const technician = createRoute({
  method: "post",
  path: "/sandbox/admin/technicians",
  summary: "Add a technician membership to an installer company (§2.6)",
  middleware: [jsonBody()] as const,
  request: body(newTechnicianSchema),
  responses: { 201: { description: "the technician" } },
});
const technicianUpdate = createRoute({
  method: "patch",
  path: "/sandbox/admin/technicians/{membership_id}",
  summary: "Activate or deactivate a technician membership",
  middleware: [jsonBody()] as const,
  request: { params: idParam("membership_id"), ...body(technicianUpdateSchema) },
  responses: { 200: { description: "the technician" } },
});

/** The company's side of install jobs and the installer companies' technicians (sandbox only). */
export function installJobRoutes(app: OpenAPIHono<SandboxEnv>, admin: SandboxAdmin): void {
  const jobs = admin.installJobs;
  const jobId = (c: { req: { param(name: string): string | undefined } }) => c.req.param("job_id") ?? "";
  app.openapi(create, (c) => c.json(jobs.create(c.req.valid("json")), 201));
  app.openapi(read, (c) => c.json(jobs.read(jobId(c)), 200));
  app.openapi(assign, (c) => c.json(jobs.assign(jobId(c), c.req.valid("json").installerCompanyId), 200));
  app.openapi(unassign, (c) => c.json(jobs.unassign(jobId(c)), 200));
  app.openapi(cancel, (c) => c.json(jobs.cancel(jobId(c), c.req.valid("json").reason), 200));
  app.openapi(scope, (c) => c.json(jobs.changeScope(jobId(c), c.req.valid("json")), 200));
  app.openapi(readiness, (c) => c.json(jobs.setReadiness(jobId(c), c.req.valid("json").blockerCodes), 200));
  app.openapi(schedule, (c) => c.json(jobs.changeSchedule(jobId(c), c.req.valid("json")), 200));
  app.openapi(accept, (c) => c.json(jobs.acceptCompletion(jobId(c)), 200));
  app.openapi(document, (c) => c.json(jobs.addDocument({ jobId: jobId(c), ...c.req.valid("json") }), 201));
  app.openapi(technician, (c) => c.json(jobs.createTechnician(c.req.valid("json")), 201));
  app.openapi(technicianUpdate, (c) => {
    const membershipId = c.req.valid("param").membership_id ?? "";
    return c.json(jobs.updateTechnician(membershipId, c.req.valid("json").active), 200);
  });
}
