import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { notFound } from "../../../http/errors.js";
import { jsonBody } from "../../../http/json-body.js";
import type { SandboxEnv } from "../../env.js";
import { faultSpecSchema } from "../../faults/fault-spec.js";
import type { SandboxAdmin } from "../sandbox-admin.js";
import { idParam } from "./schemas.js";

const ok = { 200: { description: "ok" } };

const list = createRoute({ method: "get", path: "/sandbox/admin/faults", summary: "Active faults", responses: ok });
const add = createRoute({
  method: "post",
  path: "/sandbox/admin/faults",
  summary: "Inject a fault into an inbound route",
  middleware: [jsonBody()] as const,
  request: { body: { content: { "application/json": { schema: faultSpecSchema } }, required: true } },
  responses: { 201: { description: "the fault" } },
});
const clear = createRoute({
  method: "delete",
  path: "/sandbox/admin/faults",
  summary: "Clear all faults",
  responses: ok,
});
const remove = createRoute({
  method: "delete",
  path: "/sandbox/admin/faults/{fault_id}",
  summary: "Remove one fault",
  request: { params: idParam("fault_id") },
  responses: ok,
});

/** Fault injection (sandbox only): latency, 5xx, connection resets, forced 429s per route. */
export function faultRoutes(app: OpenAPIHono<SandboxEnv>, admin: SandboxAdmin): void {
  app.openapi(list, (c) => c.json({ faults: admin.faults.list() }, 200));
  app.openapi(add, (c) => c.json(admin.faults.add(c.req.valid("json")), 201));
  app.openapi(clear, (c) => {
    const cleared = admin.faults.list().length;
    admin.faults.clear();
    return c.json({ cleared }, 200);
  });
  app.openapi(remove, (c) => {
    const id = c.req.valid("param").fault_id ?? "";
    if (!admin.faults.remove(id)) throw notFound("fault not found");
    return c.json({ removed: id }, 200);
  });
}
