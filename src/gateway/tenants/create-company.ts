import { eq } from "drizzle-orm";
import { companies } from "../../db/schema/index.js";
import { newId } from "../../ids.js";
import type { GatewayContext } from "../context.js";

export interface CompanyInput {
  /** A stable id (config files use it to apply themselves idempotently); generated when absent. */
  id?: string;
  name: string;
  limits?: { perCredential?: number; perCompany?: number } | null;
}

/** Creates a company, or updates the name and limits of the one with the same id. */
export function createCompany({ ctx, input }: { ctx: GatewayContext; input: CompanyInput }) {
  const id = input.id ?? newId("co");
  const existing = ctx.db.select().from(companies).where(eq(companies.id, id)).get();
  if (existing) {
    ctx.db
      .update(companies)
      .set({ name: input.name, limits: input.limits ?? null })
      .where(eq(companies.id, id))
      .run();
    return { ...existing, name: input.name, limits: input.limits ?? null };
  }
  const row = { id, name: input.name, limits: input.limits ?? null, createdAt: ctx.now().toISOString() };
  ctx.db.insert(companies).values(row).run();
  return row;
}
