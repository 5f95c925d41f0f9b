import type { GatewayApp } from "../../app-env.js";
import type { GatewayContext } from "../../context.js";
import { getSubmissionDetail, listSubmissions } from "../../submissions/list-submissions.js";
import { redriveSubmissions } from "../../submissions/redrive.js";
import { param, routeKit, valid } from "../route-kit.js";
import * as s from "./submissions.schemas.js";

const { bodyRoute, route } = routeKit("/owner/v1", "owner");

/** The submission log and the dead letter's redrive. */
export function submissionRoutes(app: GatewayApp, ctx: GatewayContext): void {
  app.openapi(
    route("get", "/submissions", {
      summary: "Submission log (keyset-paginated)",
      role: "viewer",
      ok: s.submissionPage,
      query: s.submissionQuery,
    }),
    async (c) =>
      c.json(
        await listSubmissions({
          ctx,
          companyId: c.get("owner").companyId,
          filter: valid(c, s.submissionQuery, "query"),
        }),
        200,
      ),
  );

  app.openapi(
    route("get", "/submissions/{submissionId}", {
      summary: "One submission with payloads and result",
      role: "viewer",
      ok: s.submissionDetail,
    }),
    async (c) => {
      const { companyId } = c.get("owner");
      return c.json(await getSubmissionDetail({ ctx, companyId, submissionId: param(c, "submissionId") }), 200);
    },
  );

  app.openapi(
    bodyRoute("post", "/dead-letter/redrive", s.redriveBody, {
      summary: "Send failed submissions again, optionally re-mapped",
      role: "admin",
      ok: s.redrive,
      errors: ["not_found", "unavailable"],
    }),
    async (c) => {
      const input = valid(c, s.redriveBody);
      return c.json(await redriveSubmissions({ ctx, companyId: c.get("owner").companyId, input }), 200);
    },
  );
}
