import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../http/app.js";
import { MAX_BODY_BYTES, readRequestBody } from "../../../http/json-body.js";
import type { GatewayContext } from "../../context.js";
import { receivePlatformDelivery } from "./receive-platform-delivery.js";

/**
 * `POST /webhooks/platform/{companyId}`: the endpoint a company's platform subscription points at. The body is read
 * as bytes and never parsed before the signature is checked (§6.3.2).
 */
export function platformReceiverRoute<E extends AppEnv>(app: OpenAPIHono<E>, ctx: GatewayContext): void {
  app.post("/webhooks/platform/:companyId", async (c) => {
    const rawBody = await readRequestBody(c, MAX_BODY_BYTES);
    const answer = await receivePlatformDelivery({
      ctx,
      companyId: c.req.param("companyId"),
      headers: c.req.raw.headers,
      rawBody,
    });
    return c.json(answer.body, answer.status);
  });
}
