import type { Condition } from "../conditions.js";
import type { Finder } from "../scan.js";
import { findPausedCredentials } from "./credential-paused.js";
import { findDeadLetterGrowth } from "./dead-letter.js";
import { findSlowForwarding } from "./forwarding-latency.js";
import { findMappingFailures } from "./mapping-failures.js";
import { findProofFailures } from "./proof-failures.js";
import { findDisabledSubscriptions } from "./subscription-disabled.js";
import { findQuietVendors } from "./vendor-quiet.js";

/** Each condition's finder (docs/alerts.md, "Conditions"). */
export const FINDERS: Readonly<Record<Condition, Finder>> = {
  mapping_failures: findMappingFailures,
  proof_failures: findProofFailures,
  dead_letter_growth: findDeadLetterGrowth,
  credential_paused: findPausedCredentials,
  subscription_disabled: findDisabledSubscriptions,
  vendor_quiet: findQuietVendors,
  forwarding_latency: findSlowForwarding,
};
