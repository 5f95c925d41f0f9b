import { routeKit } from "../owner/route-kit.js";

/** The webhook part of the owner API. */
export const PREFIX = "/owner/v1/webhooks";
export const { route, bodyRoute } = routeKit(PREFIX, "webhooks");
export { param, valid } from "../owner/route-kit.js";
