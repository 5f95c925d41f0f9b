export type { OwnerTokenSummary, TenantStore } from "./port.js";
export type { CompanyRow, NewOwnerToken, OwnerRow, OwnerTokenRow } from "./row.js";
export { sqlTenantStore } from "./store.js";
