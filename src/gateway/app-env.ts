import type { App, AppEnv } from "../http/app.js";
import type { VendorKeyRow } from "./storage/vendor-keys/index.js";
import type { OwnerPrincipal } from "./tenants/owner-auth.js";

/**
 * The gateway app's one environment (D-234): what intake's authentication sets (the vendor key) and what the owner
 * API's sets (the owner). Each is set by its own middleware, on its own paths, before any handler reads it.
 */
export interface GatewayVariables {
  vendorKey: VendorKeyRow;
  owner: OwnerPrincipal;
}

export type GatewayEnv = AppEnv<GatewayVariables>;

/** The gateway's app: every part of it registers its routes on this one type. */
export type GatewayApp = App<GatewayVariables>;
