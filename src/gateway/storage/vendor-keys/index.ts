export type { VendorKeyStore } from "./port.js";
export {
  type PartnerType,
  SqliteVendorKeyStore,
  type VendorKeyChange,
  type VendorKeyRow,
  type VendorScope,
} from "./store.js";
