import type {
  LeadRow,
  PipelineDeposit,
  PipelineInvoice,
  PipelineQuote,
  PipelineRebate,
  SalesPipelineRow,
} from "../db/schema/index.js";

/**
 * The platform's full record of one sales or project event (§6.7): what the outbox keeps as the event's data, and
 * the only input of every partner type's view (src/sandbox/events/audience.ts). It holds what no partner may see —
 * the customer's e-mail, the quote's cost and margin, the deposit's card or bank digits — so the views, not the
 * producers, decide what leaves.
 */
export interface SalesFacts {
  leadId: string;
  projectId: string | null;
  stage: string;
  previousStage: string | null;
  customer: { name: string; email: string; phone: string; address: string };
  quote: PipelineQuote | null;
  deposit: PipelineDeposit | null;
  /** The invoice an invoice.issued event is about. */
  invoice: PipelineInvoice | null;
  rebate: PipelineRebate | null;
  previousRebateStatus: string | null;
  completedAt: string | null;
}

export function salesFacts(
  pipeline: SalesPipelineRow,
  lead: Pick<LeadRow, "id" | "fullName" | "email" | "phone" | "address">,
  extra: { previousStage: string | null; invoice?: PipelineInvoice; previousRebateStatus?: string | null },
): SalesFacts {
  return {
    leadId: lead.id,
    projectId: pipeline.projectId,
    stage: pipeline.stage,
    previousStage: extra.previousStage,
    customer: { name: lead.fullName, email: lead.email, phone: lead.phone, address: lead.address },
    quote: pipeline.quote ?? null,
    deposit: pipeline.deposit ?? null,
    invoice: extra.invoice ?? null,
    rebate: pipeline.rebate ?? null,
    previousRebateStatus: extra.previousRebateStatus ?? null,
    completedAt: pipeline.completedAt,
  };
}

/** §6.7 financial journal events (names not shown): one entry per deposit, refund or invoice. */
export interface JournalFacts {
  entryId: string;
  entryType: "deposit" | "deposit_refund" | "invoice";
  amount: { amountCents: number; currency: string };
  projectId: string | null;
  invoiceId: string | null;
  depositId: string | null;
  leadId: string;
  /** Kept on the platform's journal line; never sent to an accounting partner (§1). */
  customer: { name: string; email: string };
  payment: PipelineDeposit["payment"] | null;
  postedAt: string;
}
