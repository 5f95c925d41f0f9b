import { pickAddress } from "./address.js";
import type { Entry } from "./expression.js";
import { pickName } from "./names.js";
import { pickConsent, pickEmail, pickPhone } from "./person.js";
import type { Reading } from "./reading.js";

/** §2.7's fields in the canonical order, each mapped or left out with a note. */
export function leadEntries(r: Reading): Entry[] {
  const email = pickEmail(r);
  const emailLeaves = "mapped" in email ? email.mapped.sources : [];
  return [pickName(r, emailLeaves), email, pickPhone(r), pickAddress(r), pickConsent(r)];
}
