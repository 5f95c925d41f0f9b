import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The first sample of a profile directory (its `samples/*.json` by name): the payload as its vendor sends it. */
export function samplePayload(dir: string): unknown {
  const file = readdirSync(join(dir, "samples"))
    .sort()
    .find((name) => name.endsWith(".json"));
  if (!file) throw new Error(`no sample in ${dir}/samples`);
  return (JSON.parse(readFileSync(join(dir, "samples", file), "utf8")) as { payload: unknown }).payload;
}

/**
 * A maker of new leads, made by the load generator: each call the sample again as JSON text with its own
 * `contact.email` (`<prefix><n>@example.com`), as a vendor's leads differ (the same payload twice is a retry, stored
 * once by a hook, and costs intake's indexes less than leads that differ).
 */
export function newLeads(sample: unknown, prefix: string): () => string {
  const lead = structuredClone(sample) as { contact: { email: string } };
  let made = 0;
  return () => {
    lead.contact.email = `${prefix}${++made}@example.com`;
    return JSON.stringify(lead);
  };
}

/**
 * A maker of leads of different people, as a vendor's real traffic is: each call the sample again with an e-mail and a
 * mobile number of its own, spread over the whole range as real ones are (a fixed-seed sequence, the same every run).
 * Intake indexes both for person search (D-319); `newLeads` numbers its e-mails in order, so their index entries
 * append where these land on a page of their own.
 */
export function newPeople(sample: unknown): () => string {
  const lead = structuredClone(sample) as { contact: { email: string; phones: { type: string; number: string }[] } };
  const mobile = lead.contact.phones.find((phone) => phone.type === "mobile");
  if (!mobile) throw new Error("the sample has no mobile number to vary");
  let state = 0x9e3779b9;
  // xorshift32: cheap, and the same sequence every run.
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
  return () => {
    lead.contact.email = `${next().toString(36)}.${next().toString(36)}@example.com`;
    const digits = next();
    // A valid North American number: area code and exchange 200–999.
    mobile.number = `(${200 + (digits % 800)}) ${200 + (next() % 800)}-${String(digits % 10_000).padStart(4, "0")}`;
    return JSON.stringify(lead);
  };
}
