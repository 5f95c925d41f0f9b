export {
  DEFAULT_MAX_DELAY_MS,
  DEFAULT_MIN_DELAY_MS,
  OutageRetry,
  OutageRetryClosedError,
  type OutageRetryOptions,
  type OutageState,
} from "./outage-retry.js";
export { OutageWatch } from "./outage-watch.js";
export { isStoreOutage, type OutageCause, type OutageReason, outageCause } from "./store-outage.js";
export { LEASE_GRACE_MS, type LoopOutage, type OutageStore, StoreOutages } from "./store-outages.js";
