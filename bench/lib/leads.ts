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
