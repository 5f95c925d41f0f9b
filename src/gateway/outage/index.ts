export { isStoreOutage, type OutageCause, type OutageReason, outageCause } from "./store-outage.js";
