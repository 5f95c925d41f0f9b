import type { GatewayApp } from "../../app-env.js";
import type { GatewayContext } from "../../context.js";
import { postingDocs } from "../../posting-docs/posting-docs.js";
import { renderPostingPage } from "../../posting-docs/render-page.js";
import { param, routeKit } from "../route-kit.js";
import * as s from "./posting-docs.schemas.js";

const { route } = routeKit("/owner/v1", "owner");

/** The page has no script and fetches nothing: the policy says so, wherever it is opened from. */
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

/**
 * A vendor key's posting docs (docs/owner-api.md, "Posting docs"; D-325): the JSON, and the same as the page the
 * owner sends to the vendor. Any owner may read them; another company's key is a 404.
 */
export function postingDocsRoutes(app: GatewayApp, ctx: GatewayContext): void {
  app.openapi(
    route("get", "/keys/{keyId}/posting-docs", {
      summary: "What a key's vendor must send: where, how, which fields, the answers and limits",
      role: "viewer",
      ok: s.postingDocs,
      errors: ["conflict"],
    }),
    async (c) => c.json(await postingDocs({ ctx, companyId: c.get("owner").companyId, keyId: param(c, "keyId") }), 200),
  );

  const page = route("get", "/keys/{keyId}/posting-docs/page", {
    summary: "The posting docs as one self-contained HTML page, to send to the vendor",
    role: "viewer",
    ok: s.postingPage,
    errors: ["conflict"],
  });
  const html = {
    description: "the page (text/html; no script, nothing fetched)",
    content: { "text/html": { schema: s.postingPage } },
  };
  app.openapi({ ...page, responses: { ...page.responses, 200: html } }, async (c) => {
    const docs = await postingDocs({ ctx, companyId: c.get("owner").companyId, keyId: param(c, "keyId") });
    c.header("content-security-policy", PAGE_CSP);
    c.header("content-disposition", `inline; filename="posting-docs-${docs.key.keyPrefix}.html"`);
    return c.html(renderPostingPage(docs), 200);
  });
}
