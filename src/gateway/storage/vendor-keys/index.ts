export type { VendorKeyStore } from "./port.js";
export type { PartnerType, VendorKeyChange, VendorKeyRow, VendorScope } from "./row.js";
export { SqlVendorKeyStore } from "./store.js";
