import type { vendorKeys } from "../../../db/schema/index.js";

/** A vendor key as stored: its secret only as a digest (and the previous one's, during a rotation's overlap). */
export type VendorKeyRow = typeof vendorKeys.$inferSelect;
export type { PartnerType, VendorScope } from "../../../db/schema/vendor-keys.js";

/** What may change of a key after it is issued. */
export type VendorKeyChange = Partial<Omit<VendorKeyRow, "id" | "companyId" | "createdAt">>;
