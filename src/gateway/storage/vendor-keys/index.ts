export type { PartnerType, VendorKeyChange, VendorKeyRow, VendorScope } from "./row.js";
export { sqlVendorKeyStore, type VendorKeyStore } from "./store.js";
