import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { API_VERSION } from "../../../contract/api-version.js";
import { authorize } from "../../auth/authorize.js";
import { callerCtx, type SandboxEnv } from "../../env.js";
import { documentLink } from "../services/document-link.js";
import { readDocumentContent } from "../services/read-document.js";
import { documentIdParamSchema, documentLinkQuerySchema, installerErrors } from "./schemas.js";

const link = createRoute({
  method: "get",
  path: "/api/partner/v1/documents/{doc_id}",
  summary: "A document of a job assigned to the caller, with a fresh signed URL (§2.1; not shown, §4.1 rule 8)",
  middleware: [authorize("installer-company", "jobs:read")] as const,
  request: { params: documentIdParamSchema },
  responses: {
    200: {
      description:
        "{apiVersion, resource: {id, jobId, category, availableAt, fileName, contentType, url, urlExpiresAt}}",
    },
    ...installerErrors,
  },
});

const content = createRoute({
  method: "get",
  path: "/api/partner/v1/documents/{doc_id}/content",
  summary: "The document's content: the signed, time-limited URL, bound to the installer company (§2.1)",
  middleware: [authorize("installer-company", "jobs:read")] as const,
  request: { params: documentIdParamSchema, query: documentLinkQuerySchema },
  responses: { 200: { description: "the document's bytes" }, ...installerErrors },
});

export function documentRoutes(app: OpenAPIHono<SandboxEnv>): void {
  app.openapi(link, (c) => {
    const resource = documentLink({ ctx: callerCtx(c), input: { documentId: c.req.valid("param").doc_id } });
    return c.json({ apiVersion: API_VERSION, resource }, 200);
  });
  app.openapi(content, (c) => {
    const input = { documentId: c.req.valid("param").doc_id, ...c.req.valid("query") };
    const document = readDocumentContent({ ctx: callerCtx(c), input });
    return c.body(new Uint8Array(document.content), 200, {
      "content-type": document.contentType,
      "content-disposition": `attachment; filename="${document.fileName.replaceAll('"', "")}"`,
    });
  });
}
