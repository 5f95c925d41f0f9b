import { digestSecret } from "../../../contract/api-key.js";
import type { SandboxCtx } from "../../context.js";
import type { SandboxTx } from "../../db/client.js";
import { companies, ownerAccounts } from "../../db/schema/index.js";
import { seedOwnerPassword } from "./owner-credentials.js";

/**
 * Gives every company without an owner login the fixed seed password (§5.7). Run after seeding and at start, so a
 * database file made before owner logins existed gets them too.
 */
export function ensureSeedOwners(tx: SandboxTx | SandboxCtx["db"], now: string): void {
  const rows = tx.select({ id: companies.id }).from(companies).all();
  for (const { id } of rows) {
    tx.insert(ownerAccounts)
      .values({ companyId: id, passwordDigest: digestSecret(seedOwnerPassword(id)), createdAt: now })
      .onConflictDoNothing()
      .run();
  }
}
