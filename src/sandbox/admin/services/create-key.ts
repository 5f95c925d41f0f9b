import { and, eq } from "drizzle-orm";
import { digestSecret, formatApiKey, newKeyId, newKeySecret } from "../../../contract/api-key.js";
import { badRequest, notFound } from "../../../http/errors.js";
import { KIND_SCOPES, scopesFitKind } from "../../auth/key-kinds.js";
import { isoAt } from "../../clock.js";
import type { SandboxCtx } from "../../context.js";
import { apiKeys, companies, contractors, type KeyKind, partners, people, type Scope } from "../../db/schema/index.js";

export interface NewKey {
  companyId: string;
  kind: KeyKind;
  name?: string;
  scopes?: Scope[];
  personId?: string;
  contractorId?: string;
  /** §1: the partner the key is issued to (a general key): what it creates is what that partner sourced or booked. */
  partnerId?: string;
}

export interface CreatedKey {
  name: string;
  keyId: string;
  /** The whole `svc_test_…` key, shown once: only its digest is stored. */
  key: string;
  kind: KeyKind;
  companyId: string;
  scopes: Scope[];
  personId: string | null;
  contractorId: string | null;
  partnerId: string | null;
}

/**
 * Admin: issues a test key for a company (§5). A general key is attributed to a person of the company (§2.7), an
 * installer-contractor key bound to one of its contractor records (§4.2); each defaults to the company's first.
 */
export function createKey({ ctx, input }: { ctx: SandboxCtx; input: NewKey }): CreatedKey {
  const company = ctx.db.select().from(companies).where(eq(companies.id, input.companyId)).get();
  if (!company) throw notFound("company not found");
  const scopes = input.scopes ?? [...KIND_SCOPES[input.kind]];
  if (!scopesFitKind(input.kind, scopes)) {
    throw badRequest(`scopes: not valid for a ${input.kind} key`, { field: "scopes" });
  }

  let personId: string | null = null;
  if (input.kind === "general") {
    const person = ctx.db
      .select({ id: people.id })
      .from(people)
      .where(
        input.personId
          ? and(eq(people.companyId, company.id), eq(people.id, input.personId))
          : eq(people.companyId, company.id),
      )
      .get();
    if (!person) throw badRequest("personId: the company has no such person", { field: "personId" });
    personId = person.id;
  }
  let contractorId: string | null = null;
  if (input.kind === "installer-contractor") {
    const contractor = ctx.db
      .select({ id: contractors.id })
      .from(contractors)
      .where(
        input.contractorId
          ? and(eq(contractors.companyId, company.id), eq(contractors.id, input.contractorId))
          : eq(contractors.companyId, company.id),
      )
      .get();
    if (!contractor)
      throw badRequest("contractorId: the company has no such contractor record", { field: "contractorId" });
    contractorId = contractor.id;
  }

  let partnerId: string | null = null;
  if (input.partnerId !== undefined) {
    const partner = ctx.db
      .select({ id: partners.id })
      .from(partners)
      .where(and(eq(partners.companyId, company.id), eq(partners.id, input.partnerId)))
      .get();
    if (!partner || input.kind !== "general") {
      throw badRequest("partnerId: a general key can be issued to a partner of the company only", {
        field: "partnerId",
      });
    }
    partnerId = partner.id;
  }

  const keyId = newKeyId("test");
  const secret = newKeySecret();
  const name = input.name ?? `${input.kind}-${keyId.slice(-6)}`;
  ctx.db
    .insert(apiKeys)
    .values({
      keyId,
      companyId: company.id,
      name,
      kind: input.kind,
      scopes,
      secretDigest: digestSecret(secret),
      personId,
      contractorId,
      partnerId,
      revokedAt: null,
      createdAt: isoAt(ctx.clock),
    })
    .run();
  return {
    name,
    keyId,
    key: formatApiKey(keyId, secret),
    kind: input.kind,
    companyId: company.id,
    scopes,
    personId,
    contractorId,
    partnerId,
  };
}
