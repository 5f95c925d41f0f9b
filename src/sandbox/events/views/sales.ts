import type { JournalFacts, SalesFacts } from "../sales-facts.js";
import { moneyFields, type View } from "./render.js";

// Every view here reads the facts the pipeline recorded (sales-facts.ts) and copies fields by name.
const facts = (data: Record<string, unknown>) => data as unknown as SalesFacts;

/** §1 licensee: the company's own integration sees its pipeline — but never card or bank data (no payment field). */
export const licenseeSales: View = (data, sv) => {
  const f = facts(data);
  const { quote, deposit, invoice, rebate } = f;
  return {
    leadId: f.leadId,
    projectId: f.projectId,
    stage: f.stage,
    previousStage: f.previousStage,
    customer: {
      name: f.customer.name,
      email: f.customer.email,
      phone: f.customer.phone,
      address: f.customer.address,
    },
    quote: quote && {
      id: quote.id,
      option: quote.option,
      ...moneyFields(quote.price, sv),
      cost: quote.costCents / 100,
      margin: quote.marginCents / 100,
      sentAt: quote.sentAt,
      viewedAt: quote.viewedAt,
      acceptedAt: quote.acceptedAt,
    },
    deposit: deposit && {
      id: deposit.id,
      ...moneyFields(deposit.amount, sv),
      status: deposit.status,
      paidAt: deposit.paidAt,
      refundedAt: deposit.refundedAt,
    },
    ...(invoice ? { invoice: { id: invoice.id, ...moneyFields(invoice.amount, sv), issuedAt: invoice.issuedAt } } : {}),
    rebate: rebate && {
      id: rebate.id,
      program: rebate.program,
      ...moneyFields(rebate.amount, sv),
      status: rebate.status,
      previousStatus: f.previousRebateStatus,
    },
    completedAt: f.completedAt,
  };
};

/** §1 lead source: "lead id and stage, never price". */
export const leadSourceSales: View = (data) => {
  const f = facts(data);
  return { leadId: f.leadId, stage: f.stage };
};

/** §1 financing program: "financed or rebated amount and status only" — of a deposit. */
export const financingDeposit: View = (data, sv) => {
  const { deposit } = facts(data);
  return deposit ? { depositId: deposit.id, ...moneyFields(deposit.amount, sv), status: deposit.status } : {};
};

/** §1 financing program: the rebate's amount and status. */
export const financingRebate: View = (data, sv) => {
  const f = facts(data);
  const { rebate } = f;
  return rebate
    ? {
        rebateId: rebate.id,
        program: rebate.program,
        ...moneyFields(rebate.amount, sv),
        status: rebate.status,
        previousStatus: f.previousRebateStatus,
      }
    : {};
};

/** §1 financing program: a completed project's financed (deposit) and rebated amounts, with their status. */
export const financingCompleted: View = (data, sv) => {
  const { deposit, rebate, completedAt } = facts(data);
  return {
    status: "COMPLETED",
    completedAt,
    deposit: deposit && { id: deposit.id, ...moneyFields(deposit.amount, sv), status: deposit.status },
    rebate: rebate && { id: rebate.id, ...moneyFields(rebate.amount, sv), status: rebate.status },
  };
};

/** §1 distributor: that a project closed out — no customer data, no quote prices. */
export const distributorCompleted: View = (data) => {
  const f = facts(data);
  return { projectId: f.projectId, completedAt: f.completedAt };
};

/** §1 accounting: "journal-level amounts with project and invoice ids; no customer contact details; no card or bank". */
export const accountingJournal: View = (data, sv) => {
  const f = data as unknown as JournalFacts;
  return {
    entryId: f.entryId,
    entryType: f.entryType,
    ...moneyFields(f.amount, sv),
    projectId: f.projectId,
    invoiceId: f.invoiceId,
    depositId: f.depositId,
    postedAt: f.postedAt,
  };
};
