import { digestSecret } from "../../../contract/api-key.js";
import { isoAt } from "../../clock.js";
import type { SandboxCtx } from "../../context.js";
import { companies, contractors, ownerAccounts, people } from "../../db/schema/index.js";
import { newId } from "../../ids.js";
import { newOwnerPassword } from "../../webhooks/session/owner-credentials.js";

export interface NewCompany {
  name: string;
  kind: "company" | "installer_company";
  people: Array<{ name: string; email: string }>;
  contractors: Array<{ name: string }>;
}

export interface CreatedCompany {
  id: string;
  name: string;
  kind: NewCompany["kind"];
  people: Array<{ id: string; name: string; email: string }>;
  contractors: Array<{ id: string; name: string }>;
  /** The owner login's password (§5.7 console sessions), shown once: `POST /partner-api/session`. */
  ownerPassword: string;
}

/** Admin: a company with its people and contractor records, so benchmarks can spread credentials over companies. */
export function createCompany({ ctx, input }: { ctx: SandboxCtx; input: NewCompany }): CreatedCompany {
  const id = newId("org");
  const created: CreatedCompany = {
    id,
    name: input.name,
    kind: input.kind,
    people: input.people.map((p) => ({ id: newId("per"), ...p })),
    contractors: input.contractors.map((c) => ({ id: newId("ctr"), ...c })),
    ownerPassword: newOwnerPassword(),
  };
  const now = isoAt(ctx.clock);
  ctx.db.transaction((tx) => {
    tx.insert(companies).values({ id, name: input.name, kind: input.kind, createdAt: now }).run();
    tx.insert(ownerAccounts)
      .values({ companyId: id, passwordDigest: digestSecret(created.ownerPassword), createdAt: now })
      .run();
    for (const person of created.people)
      tx.insert(people)
        .values({ ...person, companyId: id })
        .run();
    for (const contractor of created.contractors)
      tx.insert(contractors)
        .values({ ...contractor, companyId: id })
        .run();
  });
  return created;
}
