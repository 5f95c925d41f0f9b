import type { WebhookDeliveryRow, WebhookDeliveryStatus } from "../../src/db/schema/webhook-deliveries.js";
import type { Gateway } from "../../src/gateway/create-gateway.js";
import type { SubmissionAttemptRow, SubmissionRow } from "../../src/gateway/storage/submissions/index.js";
import type { Stores } from "../../src/gateway/storage/transaction.js";

/**
 * What a test reads back of the submissions record, through the stores, so that it runs on either store (D-259):
 * rows in the order of `ids` (a missing one is left out), and the attempts of each.
 */
export async function submissionRows(gateway: Pick<Gateway, "ctx">, ids: readonly string[]): Promise<SubmissionRow[]> {
  const rows = await Promise.all(ids.map((id) => gateway.ctx.submissions.read(id)));
  return rows.filter((row): row is SubmissionRow => row !== undefined);
}

export async function attemptRows(
  gateway: Pick<Gateway, "ctx">,
  ids: readonly string[],
): Promise<SubmissionAttemptRow[]> {
  return (await Promise.all(ids.map((id) => gateway.ctx.submissions.attemptsOf(id)))).flat();
}

// The whole record at once, for a test that checks everything a run left (the crash test's end state): through the
// owner's paged reads, company by company, so it reads the same on either store.

/** Every submission of every company, newest first within each company. */
export async function everySubmission(stores: Pick<Stores, "tenants" | "submissions">): Promise<SubmissionRow[]> {
  const rows: SubmissionRow[] = [];
  for (const companyId of await stores.tenants.companyIds()) {
    let cursor: string | undefined;
    for (;;) {
      const page = await stores.submissions.listPage(companyId, { limit: PAGE, ...(cursor ? { cursor } : {}) });
      rows.push(...page.slice(0, PAGE));
      if (page.length <= PAGE) break;
      cursor = page[PAGE - 1]?.id;
    }
  }
  return rows;
}

/** Every webhook delivery of every subscription, whatever its status. */
export async function everyDelivery(stores: Pick<Stores, "tenants" | "webhooks">): Promise<WebhookDeliveryRow[]> {
  const rows: WebhookDeliveryRow[] = [];
  const statuses: WebhookDeliveryStatus[] = ["pending", "delivering", "delivered", "failed"];
  for (const companyId of await stores.tenants.companyIds()) {
    for (const subscription of await stores.webhooks.subscriptions.listOfCompany(companyId)) {
      for (const status of statuses) {
        let before: string | undefined;
        for (;;) {
          const page = await stores.webhooks.deliveries.pageOf(subscription.id, status, before, PAGE);
          rows.push(...page);
          if (page.length < PAGE) break;
          before = page.at(-1)?.id;
        }
      }
    }
  }
  return rows;
}

const PAGE = 500;
