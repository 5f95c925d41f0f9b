import { digestSecret, formatApiKey } from "../../contract/api-key.js";
import { KIND_SCOPES } from "../auth/key-kinds.js";
import type { SandboxTx } from "../db/client.js";
import {
  apiKeys,
  companies,
  contractors,
  type KeyKind,
  leads,
  people,
  projects,
  type Scope,
} from "../db/schema/index.js";
import { addressKey, projectAddressKey } from "../inbound/address-key.js";
import { applyInstallJobs } from "./apply-install-jobs.js";
import { SeedError } from "./load-seed.js";
import type { Seed, SeedCompany } from "./seed-schema.js";

/** A seeded key as printed at start and documented: sandbox keys are public test fixtures. */
export interface TestKey {
  name: string;
  kind: KeyKind;
  companyId: string;
  key: string;
  scopes: Scope[];
  revoked: boolean;
}

export function testKeysOf(seed: Seed): TestKey[] {
  return seed.companies.flatMap((company) =>
    company.keys.map((k) => ({
      name: k.name,
      kind: k.kind,
      companyId: company.id,
      key: formatApiKey(k.keyId, k.secret),
      scopes: k.scopes ?? [...KIND_SCOPES[k.kind]],
      revoked: k.revoked,
    })),
  );
}

function requireOwn(company: SeedCompany, what: string, ids: Set<string>, ref: string | undefined): void {
  if (ref !== undefined && !ids.has(ref)) {
    throw new SeedError(`company ${company.id}: ${what} ${ref} is not one of its own`);
  }
}

/**
 * Inserts the seed into an empty database inside the caller's transaction. `now` stamps rows without a time. Install
 * jobs come after every company, since a job names an installer company that may be listed after its own.
 */
export function applySeed(tx: SandboxTx, seed: Seed, now: string): void {
  for (const company of seed.companies) {
    tx.insert(companies).values({ id: company.id, name: company.name, kind: company.kind, createdAt: now }).run();
    const personIds = new Set(company.people.map((p) => p.id));
    const contractorIds = new Set(company.contractors.map((c) => c.id));
    const leadIds = new Set(company.leads.map((l) => l.id));

    for (const person of company.people)
      tx.insert(people)
        .values({ ...person, companyId: company.id })
        .run();
    for (const contractor of company.contractors) {
      tx.insert(contractors)
        .values({ ...contractor, companyId: company.id })
        .run();
    }
    for (const key of company.keys) {
      requireOwn(company, "person", personIds, key.personId);
      requireOwn(company, "contractor", contractorIds, key.contractorId);
      tx.insert(apiKeys)
        .values({
          keyId: key.keyId,
          companyId: company.id,
          name: key.name,
          kind: key.kind,
          scopes: key.scopes ?? [...KIND_SCOPES[key.kind]],
          secretDigest: digestSecret(key.secret),
          personId: key.personId ?? null,
          contractorId: key.contractorId ?? null,
          revokedAt: key.revoked ? now : null,
          createdAt: now,
        })
        .run();
    }
    for (const lead of company.leads) {
      requireOwn(company, "person", personIds, lead.personId);
      const createdAt = lead.createdAt ?? now;
      tx.insert(leads)
        .values({
          ...lead,
          companyId: company.id,
          personId: lead.personId ?? null,
          keyId: null,
          addressKey: addressKey(lead.address),
          smsConsent: lead.smsConsent ?? null,
          createdAt,
          updatedAt: createdAt,
        })
        .run();
    }
    for (const project of company.projects) {
      requireOwn(company, "contractor", contractorIds, project.contractorId);
      requireOwn(company, "lead", leadIds, project.leadId);
      tx.insert(projects)
        .values({
          ...project,
          companyId: company.id,
          contractorId: project.contractorId ?? null,
          leadId: project.leadId ?? null,
          addressKey: projectAddressKey(project),
          createdAt: now,
        })
        .run();
    }
  }
  applyInstallJobs(tx, seed, now);
}
