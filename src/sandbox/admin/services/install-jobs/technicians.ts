import { eq } from "drizzle-orm";
import { badRequest, notFound } from "../../../../http/errors.js";
import type { SandboxCtx } from "../../../context.js";
import { companies, type TechnicianRow } from "../../../db/schema/index.js";
import { newId } from "../../../ids.js";
import { insertTechnician, readTechnician, setTechnicianActive } from "../../../installer/store/technicians.js";

/** Admin: a technician membership of an installer company (§2.6), active unless said otherwise. */
export function createTechnician({
  ctx,
  input,
}: {
  ctx: SandboxCtx;
  input: { installerCompanyId: string; displayName: string; active?: boolean };
}): TechnicianRow {
  const company = ctx.db.select().from(companies).where(eq(companies.id, input.installerCompanyId)).get();
  if (!company) throw notFound("installer company not found");
  if (company.kind !== "installer_company") {
    throw badRequest("installerCompanyId: must be an installer company", { field: "installerCompanyId" });
  }
  const row: TechnicianRow = {
    id: newId("mem"),
    installerCompanyId: company.id,
    displayName: input.displayName,
    active: input.active ?? true,
    createdAt: new Date(ctx.clock.now()).toISOString(),
  };
  insertTechnician(ctx.db, row);
  return row;
}

/** Admin: (de)activates a membership; an inactive one can no longer be assigned (§2.5), existing assignments stay. */
export function updateTechnician({
  ctx,
  input,
}: {
  ctx: SandboxCtx;
  input: { membershipId: string; active: boolean };
}): TechnicianRow {
  const row = readTechnician(ctx.db, input.membershipId);
  if (!row) throw notFound("technician not found");
  setTechnicianActive(ctx.db, row.id, input.active);
  return { ...row, active: input.active };
}
