export type { VendorKeyStore } from "./port.js";
export type { PartnerType, VendorKeyChange, VendorKeyRow, VendorScope } from "./row.js";
export { sqlVendorKeyStore } from "./store.js";
