import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { companies } from "./companies.js";
import { leads } from "./leads.js";

/** An amount in minor units (cents) and its ISO 4217 currency: never a float. */
export interface Money {
  amountCents: number;
  currency: string;
}

export interface PipelineQuote {
  id: string;
  option: string;
  price: Money;
  /** The company's own figures: never sent to a partner (§1, §2.1). */
  costCents: number;
  marginCents: number;
  sentAt: string;
  viewedAt: string | null;
  acceptedAt: string | null;
}

export interface PipelineDeposit {
  id: string;
  amount: Money;
  status: "PAID" | "REFUNDED";
  /** How the customer paid: card or bank details, kept by the platform, never sent to a partner. */
  payment: { method: "card" | "bank_transfer"; last4: string };
  paidAt: string;
  refundedAt: string | null;
}

export interface PipelineInvoice {
  id: string;
  amount: Money;
  issuedAt: string;
}

export interface PipelineRebate {
  id: string;
  program: string;
  amount: Money;
  status: string;
  updatedAt: string;
}

/**
 * The sales pipeline of one lead (§6.7 sales and project events): quote, stage, deposit, invoices, rebate, completion.
 * The sandbox has no sales app; the admin API drives this record and every change emits its §6.7 event. `version`
 * (+1 per change) is the `resource.version` of those events, whose resource is `{type: "lead", id: leadId}`.
 */
export const salesPipelines = sqliteTable("sales_pipelines", {
  // Primary key: serves the lookup of a lead's pipeline on every admin change.
  leadId: text("lead_id")
    .primaryKey()
    .references(() => leads.id),
  companyId: text("company_id")
    .notNull()
    .references(() => companies.id),
  /** The sold project (§3.3) the pipeline turned into, when the admin named one. */
  projectId: text("project_id"),
  stage: text("stage").notNull(),
  version: integer("version").notNull(),
  quote: text("quote", { mode: "json" }).$type<PipelineQuote>(),
  deposit: text("deposit", { mode: "json" }).$type<PipelineDeposit>(),
  invoices: text("invoices", { mode: "json" }).$type<PipelineInvoice[]>().notNull(),
  rebate: text("rebate", { mode: "json" }).$type<PipelineRebate>(),
  completedAt: text("completed_at"),
  updatedAt: text("updated_at").notNull(),
});

export type SalesPipelineRow = typeof salesPipelines.$inferSelect;
