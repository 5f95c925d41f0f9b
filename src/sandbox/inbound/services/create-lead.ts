import { and, eq } from "drizzle-orm";
import type { Lead, LeadResult } from "../../../contract/lead.js";
import { isoAt } from "../../clock.js";
import type { CallerCtx } from "../../context.js";
import { leadSubmissions, leads, projects } from "../../db/schema/index.js";
import { newId } from "../../ids.js";
import { addressKey } from "../address-key.js";

export const SOLD_PROJECT_REASON = "address belongs to a sold project";

/**
 * POST /api/inbound/leads (§2.7, §3.3). Within the caller's company, by normalised address:
 * a sold project → merged with reason and projectId, the project untouched; an open lead → merged, contact details
 * updated; otherwise a new lead attributed to the key's person. Every submission is recorded in the history.
 */
export function createLead({ ctx, input }: { ctx: CallerCtx; input: Lead }): LeadResult {
  const { caller } = ctx;
  const key = addressKey(input.address);
  const now = isoAt(ctx.clock);
  const submission = { companyId: caller.companyId, keyId: caller.keyId, body: input, receivedAt: now };

  return ctx.db.transaction((tx) => {
    const project = tx
      .select({ id: projects.id })
      .from(projects)
      .where(and(eq(projects.companyId, caller.companyId), eq(projects.addressKey, key)))
      .get();
    if (project) {
      tx.insert(leadSubmissions)
        .values({ ...submission, id: newId("sub"), projectId: project.id, outcome: "sold_project" })
        .run();
      return { status: "merged", reason: SOLD_PROJECT_REASON, projectId: project.id };
    }

    const open = tx
      .select({ id: leads.id })
      .from(leads)
      .where(and(eq(leads.companyId, caller.companyId), eq(leads.addressKey, key), eq(leads.status, "open")))
      .get();
    if (open) {
      tx.update(leads)
        .set({
          fullName: input.fullName,
          email: input.email,
          phone: input.phone,
          // §2.7: a merge without smsConsent keeps the stored value.
          ...(input.smsConsent === undefined ? {} : { smsConsent: input.smsConsent }),
          updatedAt: now,
        })
        .where(eq(leads.id, open.id))
        .run();
      tx.insert(leadSubmissions)
        .values({ ...submission, id: newId("sub"), leadId: open.id, outcome: "merged" })
        .run();
      return { status: "merged", leadId: open.id };
    }

    const leadId = newId("lead");
    tx.insert(leads)
      .values({
        id: leadId,
        companyId: caller.companyId,
        personId: caller.personId,
        keyId: caller.keyId,
        fullName: input.fullName,
        email: input.email,
        phone: input.phone,
        address: input.address,
        addressKey: key,
        smsConsent: input.smsConsent ?? null,
        status: "open",
        createdAt: now,
        updatedAt: now,
      })
      .run();
    tx.insert(leadSubmissions)
      .values({ ...submission, id: newId("sub"), leadId, outcome: "created" })
      .run();
    return { status: "created", leadId };
  });
}
