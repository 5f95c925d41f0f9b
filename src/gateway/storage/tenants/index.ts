export { type CompanyRow, type NewOwnerToken, type OwnerRow, type OwnerTokenRow, TenantStore } from "./store.js";
