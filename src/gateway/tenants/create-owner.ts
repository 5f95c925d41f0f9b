import { badRequest, conflict } from "../../http/errors.js";
import { newId } from "../../ids.js";
import type { GatewayContext } from "../context.js";

export interface OwnerInput {
  companyId: string;
  email: string;
  name: string;
  role: "admin" | "viewer";
  password: string;
}

export const MIN_PASSWORD_LENGTH = 12;

/**
 * Creates an owner account; re-applying the same email for the same company updates it (config files). A changed
 * password ends the owner's sessions (docs/decisions.md, "Owner sign-in"); an unchanged one hashed at a lower cost
 * than the current is hashed again.
 */
export async function createOwner({ ctx, input }: { ctx: GatewayContext; input: OwnerInput }) {
  if (input.password.length < MIN_PASSWORD_LENGTH) {
    throw badRequest(`password: must be at least ${MIN_PASSWORD_LENGTH} characters`, { field: "password" });
  }
  const email = input.email.trim().toLowerCase();
  const existing = await ctx.tenants.ownerByEmail(email);
  if (existing && existing.companyId !== input.companyId) throw conflict("an owner with this email already exists");
  if (existing) {
    const check = await ctx.passwords.verify(input.password, existing.passwordHash);
    const passwordHash = check.ok && !check.outdated ? existing.passwordHash : await ctx.passwords.hash(input.password);
    // A changed password ends the owner's sessions, in the same transaction.
    await ctx.tenants.updateOwner(
      existing.id,
      { name: input.name, role: input.role, passwordHash },
      check.ok ? undefined : ctx.now(),
    );
    return { id: existing.id, companyId: existing.companyId, email, name: input.name, role: input.role };
  }
  const row = {
    id: newId("own"),
    companyId: input.companyId,
    email,
    name: input.name,
    role: input.role,
    passwordHash: await ctx.passwords.hash(input.password),
    createdAt: ctx.now().toISOString(),
  };
  await ctx.tenants.insertOwner(row);
  return { id: row.id, companyId: row.companyId, email, name: row.name, role: row.role };
}
