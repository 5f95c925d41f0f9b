import { ApiError } from "../../../../http/errors.js";
import type { PipelineInvoice, SalesPipelineRow } from "../../../db/schema/index.js";
import type { JournalFacts } from "../../../events/sales-facts.js";
import { newId } from "../../../ids.js";

/** §6.7 sales and project events the admin pipeline records, one per change. */
export const PIPELINE_EVENTS = [
  "quote.sent",
  "quote.viewed",
  "quote.accepted",
  "project.stage_changed",
  "deposit.paid",
  "deposit.refunded",
  "invoice.issued",
  "rebate.status_changed",
  "project.completed",
] as const;
export type PipelineEvent = (typeof PIPELINE_EVENTS)[number];

export const REBATE_STATUSES = ["SUBMITTED", "APPROVED", "DENIED", "PAID"] as const;

/** One admin change of a lead's pipeline; every field but `event` has a default so a walk-through stays short. */
export interface PipelineChange {
  event: PipelineEvent;
  /** The company's sold project the pipeline became (§3.3); kept once named. */
  projectId?: string;
  option?: string;
  amountCents?: number;
  currency?: string;
  costCents?: number;
  stage?: string;
  method?: "card" | "bank_transfer";
  status?: (typeof REBATE_STATUSES)[number];
  program?: string;
}

/** The stage each event puts the pipeline in; deposits, invoices and rebates leave it where it is. */
const STAGE_OF: Partial<Record<PipelineEvent, string>> = {
  "quote.sent": "QUOTE_SENT",
  "quote.viewed": "QUOTE_VIEWED",
  "quote.accepted": "QUOTE_ACCEPTED",
  "project.completed": "COMPLETED",
};

export interface AppliedChange {
  next: SalesPipelineRow;
  invoice?: PipelineInvoice;
  previousRebateStatus?: string | null;
  /** §6.7 financial journal: the entry a deposit, refund or invoice posts, without its customer (added by the caller). */
  journal?: Omit<JournalFacts, "customer" | "leadId">;
}

const unprocessable = (message: string) => new ApiError("unprocessable", message);

/**
 * The state rules of the sandbox's pipeline (§6.7; transitions not shown, docs/decisions.md): a quote is viewed or
 * accepted only once sent, a deposit refunded only once paid, and nothing changes after completion.
 */
export function applyChange(current: SalesPipelineRow, change: PipelineChange, now: string): AppliedChange {
  if (current.completedAt !== null) throw unprocessable("the project is completed; its pipeline no longer changes");
  const currency = change.currency ?? "USD";
  const next: SalesPipelineRow = {
    ...current,
    projectId: change.projectId ?? current.projectId,
    stage:
      change.event === "project.stage_changed"
        ? (change.stage ?? current.stage)
        : (STAGE_OF[change.event] ?? current.stage),
    version: current.version + 1,
    updatedAt: now,
  };
  switch (change.event) {
    case "quote.sent": {
      const price = change.amountCents ?? 1_850_000;
      const cost = change.costCents ?? Math.round(price * 0.7);
      next.quote = {
        id: newId("quo"),
        option: change.option ?? "Standard",
        price: { amountCents: price, currency },
        costCents: cost,
        marginCents: price - cost,
        sentAt: now,
        viewedAt: null,
        acceptedAt: null,
      };
      return { next };
    }
    case "quote.viewed":
    case "quote.accepted": {
      if (!current.quote) throw unprocessable(`${change.event}: no quote was sent`);
      next.quote =
        change.event === "quote.viewed"
          ? { ...current.quote, viewedAt: now }
          : { ...current.quote, option: change.option ?? current.quote.option, acceptedAt: now };
      return { next };
    }
    case "project.stage_changed":
      if (!change.stage) throw unprocessable("project.stage_changed: stage is required");
      if (change.stage === current.stage)
        throw unprocessable(`project.stage_changed: the stage is already ${change.stage}`);
      return { next };
    case "deposit.paid": {
      if (current.deposit?.status === "PAID") throw unprocessable("deposit.paid: a deposit is already paid");
      const amount = { amountCents: change.amountCents ?? 150_000, currency };
      const method = change.method ?? "card";
      const deposit = {
        id: newId("dep"),
        amount,
        status: "PAID" as const,
        payment: { method, last4: method === "card" ? "4242" : "6789" },
        paidAt: now,
        refundedAt: null,
      };
      next.deposit = deposit;
      return {
        next,
        journal: journal("deposit", amount, next, { depositId: deposit.id, payment: deposit.payment }, now),
      };
    }
    case "deposit.refunded": {
      const deposit = current.deposit;
      if (deposit?.status !== "PAID") throw unprocessable("deposit.refunded: no paid deposit");
      next.deposit = { ...deposit, status: "REFUNDED", refundedAt: now };
      const amount = { amountCents: -deposit.amount.amountCents, currency: deposit.amount.currency };
      return {
        next,
        journal: journal("deposit_refund", amount, next, { depositId: deposit.id, payment: deposit.payment }, now),
      };
    }
    case "invoice.issued": {
      const invoice = {
        id: newId("inv"),
        amount: { amountCents: change.amountCents ?? 1_700_000, currency },
        issuedAt: now,
      };
      next.invoices = [...current.invoices, invoice];
      return { next, invoice, journal: journal("invoice", invoice.amount, next, { invoiceId: invoice.id }, now) };
    }
    case "rebate.status_changed": {
      const status = change.status ?? "SUBMITTED";
      const previous = current.rebate;
      if (previous?.status === status) throw unprocessable(`rebate.status_changed: the rebate is already ${status}`);
      next.rebate = {
        id: previous?.id ?? newId("reb"),
        program: change.program ?? previous?.program ?? "State heat pump rebate",
        amount:
          change.amountCents !== undefined
            ? { amountCents: change.amountCents, currency }
            : (previous?.amount ?? { amountCents: 200_000, currency }),
        status,
        updatedAt: now,
      };
      return { next, previousRebateStatus: previous?.status ?? null };
    }
    case "project.completed":
      next.completedAt = now;
      return { next };
  }
}

function journal(
  entryType: JournalFacts["entryType"],
  amount: JournalFacts["amount"],
  pipeline: SalesPipelineRow,
  refs: { depositId?: string; invoiceId?: string; payment?: JournalFacts["payment"] },
  now: string,
): Omit<JournalFacts, "customer" | "leadId"> {
  return {
    entryId: newId("jrn"),
    entryType,
    amount,
    projectId: pipeline.projectId,
    invoiceId: refs.invoiceId ?? null,
    depositId: refs.depositId ?? null,
    payment: refs.payment ?? null,
    postedAt: now,
  };
}
