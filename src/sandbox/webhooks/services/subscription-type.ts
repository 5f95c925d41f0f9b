import { and, eq } from "drizzle-orm";
import { badRequest, notFound } from "../../../http/errors.js";
import { apiKeys, companies, type PartnerType, partners } from "../../db/schema/index.js";
import type { ConsoleCtx } from "../console-ctx.js";

export interface SubscriptionParty {
  partnerType: PartnerType;
  partnerId: string | null;
  partnerKeyIds: string[];
}

/**
 * §1 "the type belongs to the partner": a subscription's partner type is inherited, never chosen — the partner
 * record's type when it names `partnerId`, `installer_company` when the owner is an installer company, else
 * `licensee` (the company's own integration). A `partnerType` in the body is accepted only when it says the same, so
 * the body the gateway sends today (`partnerType: "licensee"` with its own keys) keeps working and no owner can widen a
 * partner's type per subscription. The named keys must be the partner's own (or, for the company's own subscription,
 * the company's): events they cause are not sent back (§4.2 rule 2).
 */
export function subscriptionParty(
  ctx: ConsoleCtx,
  input: { partnerType?: PartnerType; partnerId?: string; partnerKeyIds: string[] },
): SubscriptionParty {
  const companyId = ctx.owner.companyId;
  const partner = input.partnerId
    ? ctx.db
        .select()
        .from(partners)
        .where(and(eq(partners.id, input.partnerId), eq(partners.companyId, companyId)))
        .get()
    : undefined;
  if (input.partnerId && !partner) throw notFound("partner not found");
  const company = ctx.db.select({ kind: companies.kind }).from(companies).where(eq(companies.id, companyId)).get();
  const inherited: PartnerType = partner
    ? partner.type
    : company?.kind === "installer_company"
      ? "installer_company"
      : "licensee";
  if (input.partnerType !== undefined && input.partnerType !== inherited) {
    throw badRequest(
      partner
        ? `partnerType: the partner's type is ${inherited}; it cannot be chosen per subscription`
        : `partnerType: ${input.partnerType} belongs to a partner record: name its partnerId (without one the subscription is ${inherited})`,
      { field: "partnerType", partnerType: inherited },
    );
  }
  const ownKeys = new Set(
    ctx.db
      .select({ keyId: apiKeys.keyId })
      .from(apiKeys)
      .where(
        partner
          ? and(eq(apiKeys.companyId, companyId), eq(apiKeys.partnerId, partner.id))
          : eq(apiKeys.companyId, companyId),
      )
      .all()
      .map((k) => k.keyId),
  );
  const foreign = input.partnerKeyIds.filter((keyId) => !ownKeys.has(keyId));
  if (foreign.length > 0) {
    throw badRequest(`partnerKeyIds: not keys of this ${partner ? "partner" : "company"}: ${foreign.join(", ")}`, {
      field: "partnerKeyIds",
    });
  }
  return { partnerType: inherited, partnerId: partner?.id ?? null, partnerKeyIds: [...new Set(input.partnerKeyIds)] };
}
