export type { OwnerTokenSummary, TenantStore } from "./port.js";
export { type CompanyRow, type NewOwnerToken, type OwnerRow, type OwnerTokenRow, SqliteTenantStore } from "./store.js";
