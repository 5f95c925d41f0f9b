/**
 * The upstream of `npm run bench:drain`: the sandbox in its own process (so its clock and event loop are not the
 * gateway's), with per-second limits from the command line, and the companies and general keys the bench asks for.
 * Prints one JSON line `{url, companies: [{id, keys: [key…]}]}` when listening.
 * usage: sandbox-server.ts PER_KEY PER_OWNER PER_IP WINDOW_MS CREDENTIALS_PER_COMPANY…
 * (a limit may carry its own window, `60/60000`: the burst case keeps the spec's minute on keys and owners)
 */

import { createLogger } from "../src/log.js";
import { startSandbox } from "../src/sandbox/index.js";

const [key = "10", owner = "50", ip = "100", window = "1000", ...layout] = process.argv.slice(2);
const windowMs = Number(window);
const perCompany = layout.map(Number);
/** `N` (per WINDOW_MS) or `N/W`. */
const rule = (arg: string) => {
  const [limit, own] = arg.split("/");
  return { limit: Number(limit), windowMs: own ? Number(own) : windowMs };
};
const sandbox = await startSandbox({
  host: "127.0.0.1",
  port: 0,
  // A file keeps the sandbox's state the way a real deployment would (crash tests point it at one).
  dbPath: process.env.SANDBOX_DB_PATH ?? ":memory:",
  log: createLogger({ level: "silent" }),
  limits: { key: rule(key), owner: rule(owner), ip: rule(ip) },
});
const companies = perCompany.map((count, i) => {
  const company = sandbox.admin.createCompany({
    name: `Bench ${i}`,
    kind: "company",
    people: [{ name: "Rep", email: `rep${i}@bench.test` }],
    contractors: [],
  });
  const personId = company.people[0]?.id;
  const keys = Array.from(
    { length: count },
    () => sandbox.admin.createKey({ companyId: company.id, kind: "general", personId }).key,
  );
  return { id: company.id, keys };
});
process.stdout.write(`${JSON.stringify({ url: sandbox.url, adminToken: sandbox.adminToken, companies })}\n`);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(0));
