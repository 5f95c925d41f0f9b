export type { CompanyRow, NewOwnerToken, OwnerRow, OwnerTokenRow } from "./row.js";
export { sqlTenantStore, type TenantStore } from "./store.js";
