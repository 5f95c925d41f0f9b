import { and, asc, eq, inArray } from "drizzle-orm";
import { badRequest, notFound } from "../../../http/errors.js";
import { isoAt } from "../../clock.js";
import { apiKeys, type PartnerRecordType, type PartnerRow, partners } from "../../db/schema/index.js";
import { newId } from "../../ids.js";
import type { ConsoleCtx } from "../console-ctx.js";

export interface PartnerView {
  id: string;
  name: string;
  type: PartnerRecordType;
  keyIds: string[];
  completedProjectsOptIn: boolean;
  createdAt: string;
}

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

export function listPartners({ ctx }: { ctx: ConsoleCtx }): PartnerView[] {
  const rows = ctx.db
    .select()
    .from(partners)
    .where(eq(partners.companyId, ctx.owner.companyId))
    .orderBy(asc(partners.id))
    .all();
  return rows.map((row) => partnerView(row, keysOf(ctx, row.id)));
}

/** §1 distributor: the company opts in (or out) of telling it about completed projects. The type never changes. */
export function setPartnerOptIn({
  ctx,
  input,
}: {
  ctx: ConsoleCtx;
  input: { id: string; completedProjectsOptIn: boolean };
}): PartnerView {
  const row = ctx.db
    .select()
    .from(partners)
    .where(and(eq(partners.id, input.id), eq(partners.companyId, ctx.owner.companyId)))
    .get();
  if (!row) throw notFound("partner not found");
  ctx.db
    .update(partners)
    .set({ completedProjectsOptIn: input.completedProjectsOptIn })
    .where(eq(partners.id, row.id))
    .run();
  return partnerView({ ...row, completedProjectsOptIn: input.completedProjectsOptIn }, keysOf(ctx, row.id));
}

function keysOf(ctx: ConsoleCtx, partnerId: string): string[] {
  return ctx.db
    .select({ keyId: apiKeys.keyId })
    .from(apiKeys)
    .where(eq(apiKeys.partnerId, partnerId))
    .orderBy(asc(apiKeys.keyId))
    .all()
    .map((k) => k.keyId);
}

function partnerView(row: PartnerRow, keyIds: string[]): PartnerView {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    keyIds,
    completedProjectsOptIn: row.completedProjectsOptIn,
    createdAt: row.createdAt,
  };
}
