import { asc, eq } from "drizzle-orm";
import type { SandboxCtx } from "../../context.js";
import { apiKeys, type PartnerRecordType, type PartnerRow } from "../../db/schema/index.js";

/** §1 a partner of the company: its type, fixed at creation, and the keys issued to it. */
export interface PartnerView {
  id: string;
  name: string;
  type: PartnerRecordType;
  keyIds: string[];
  completedProjectsOptIn: boolean;
  createdAt: string;
}

/** The keys issued to a partner (§1), in id order. */
export function keysOf(ctx: SandboxCtx, partnerId: string): string[] {
  return ctx.db
    .select({ keyId: apiKeys.keyId })
    .from(apiKeys)
    .where(eq(apiKeys.partnerId, partnerId))
    .orderBy(asc(apiKeys.keyId))
    .all()
    .map((k) => k.keyId);
}

/** A partner as the console shows it. */
export function partnerView(row: PartnerRow, keyIds: string[]): PartnerView {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    keyIds,
    completedProjectsOptIn: row.completedProjectsOptIn,
    createdAt: row.createdAt,
  };
}
