import { randomBytes } from "node:crypto";

/**
 * Resource ids with the spec's prefixes: `lead_` (§2.7), `prj_` (§2.9), `apt_` (§2.8), `evt_` (§6.1), `org_`, `job_`,
 * `doc_`, `mem_` (§2.1); `evd_` is the sandbox's own, for completion evidence; `ptn_` (partners), `quo_`,
 * `dep_`, `inv_`, `reb_` (the sales pipeline) and `jrn_` (journal entries) too.
 */
export type IdPrefix =
  | "lead"
  | "prj"
  | "apt"
  | "evt"
  | "org"
  | "sub"
  | "note"
  | "per"
  | "ctr"
  | "job"
  | "doc"
  | "mem"
  | "evd"
  | "ptn"
  | "quo"
  | "dep"
  | "inv"
  | "reb"
  | "jrn";

/** 80 random bits, hex: unguessable, so a 404 never becomes an existence oracle by enumeration (§7). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBytes(10).toString("hex")}`;
}
