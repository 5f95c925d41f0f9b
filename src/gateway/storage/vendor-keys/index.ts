export {
  type PartnerType,
  type VendorKeyChange,
  type VendorKeyRow,
  VendorKeyStore,
  type VendorScope,
} from "./store.js";
