import type { OpenAPIHono } from "@hono/zod-openapi";
import type { SandboxEnv } from "../../env.js";
import { adminAuth } from "../admin-auth.js";
import type { SandboxAdmin } from "../sandbox-admin.js";
import { credentialRoutes } from "./credentials.js";
import { faultRoutes } from "./faults.js";
import { installJobRoutes } from "./install-jobs.js";
import { recordRoutes } from "./records.js";
import { stateRoutes } from "./state.js";

/** The admin API under `/sandbox/admin`, behind the admin bearer token. It exists only in the sandbox. */
export function adminRoutes(app: OpenAPIHono<SandboxEnv>, admin: SandboxAdmin, token: string): void {
  app.use("/sandbox/admin/*", adminAuth(token));
  stateRoutes(app, admin);
  faultRoutes(app, admin);
  credentialRoutes(app, admin);
  recordRoutes(app, admin);
  installJobRoutes(app, admin);
}
