import { routeKit } from "../../http/route-kit.js";

/** The webhook part of the owner API. */
export const PREFIX = "/owner/v1/webhooks";
export const { route, bodyRoute } = routeKit(PREFIX, "webhooks");
export { param, valid } from "../../http/route-kit.js";
