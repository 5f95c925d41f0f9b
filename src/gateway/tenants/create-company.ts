import { newId } from "../../ids.js";
import type { GatewayContext } from "../context.js";

export interface CompanyInput {
  /** A stable id (config files use it to apply themselves idempotently); generated when absent. */
  id?: string;
  name: string;
  limits?: { perCredential?: number; perCompany?: number } | null;
}

/** Creates a company, or updates the name and limits of the one with the same id. */
export async function createCompany({ ctx, input }: { ctx: GatewayContext; input: CompanyInput }) {
  const id = input.id ?? newId("co");
  const existing = await ctx.tenants.getCompany(id);
  if (existing) {
    await ctx.tenants.updateCompany(id, { name: input.name, limits: input.limits ?? null });
    return { ...existing, name: input.name, limits: input.limits ?? null };
  }
  const row = { id, name: input.name, limits: input.limits ?? null, createdAt: ctx.now().toISOString() };
  await ctx.tenants.insertCompany(row);
  return row;
}
