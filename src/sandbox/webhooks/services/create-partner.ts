import { and, eq, inArray } from "drizzle-orm";
import { badRequest } from "../../../http/errors.js";
import { isoAt } from "../../clock.js";
import { apiKeys, type PartnerRecordType, type PartnerRow, partners } from "../../db/schema/index.js";
import { newId } from "../../ids.js";
import type { ConsoleCtx } from "../console-ctx.js";
import { type PartnerView, partnerView } from "./partner-view.js";

/**
 * `POST /partner-api/partners` (§1 partner types; the sandbox's console, not shown by the spec): the company records
 * a partner with its type, once and for all, and may hand it general keys of its own that belong to no other partner.
 * What those keys create is what the partner sourced or booked.
 */
export function createPartner({
  ctx,
  input,
}: {
  ctx: ConsoleCtx;
  input: { name: string; type: PartnerRecordType; keyIds: string[]; completedProjectsOptIn: boolean };
}): PartnerView {
  const companyId = ctx.owner.companyId;
  const keyIds = [...new Set(input.keyIds)];
  return ctx.db.transaction((tx) => {
    const free =
      keyIds.length === 0
        ? []
        : tx
            .select({ keyId: apiKeys.keyId, partnerId: apiKeys.partnerId, kind: apiKeys.kind })
            .from(apiKeys)
            .where(and(eq(apiKeys.companyId, companyId), inArray(apiKeys.keyId, keyIds)))
            .all()
            .filter((k) => k.partnerId === null && k.kind === "general")
            .map((k) => k.keyId);
    const refused = keyIds.filter((keyId) => !free.includes(keyId));
    if (refused.length > 0) {
      throw badRequest(`keyIds: not free general keys of this company: ${refused.join(", ")}`, { field: "keyIds" });
    }
    const row: PartnerRow = {
      id: newId("ptn"),
      companyId,
      name: input.name,
      type: input.type,
      completedProjectsOptIn: input.completedProjectsOptIn,
      createdAt: isoAt(ctx.clock),
    };
    tx.insert(partners).values(row).run();
    if (keyIds.length > 0) tx.update(apiKeys).set({ partnerId: row.id }).where(inArray(apiKeys.keyId, keyIds)).run();
    return partnerView(row, keyIds);
  });
}
