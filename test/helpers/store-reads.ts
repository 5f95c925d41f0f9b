import type { Gateway } from "../../src/gateway/create-gateway.js";
import type { SubmissionAttemptRow, SubmissionRow } from "../../src/gateway/storage/submissions/index.js";
import type { Stores } from "../../src/gateway/storage/transaction.js";
import type { WebhookDeliveryRow, WebhookDeliveryStatus } from "../../src/gateway/storage/webhooks/index.js";

/**
 * What a test reads back of the submissions record, through the stores, so that it runs on either store (D-259):
 * rows in the order of `ids` (a missing one is left out), and the attempts of each.
 */
export async function submissionRows(gateway: Pick<Gateway, "ctx">, ids: readonly string[]): Promise<SubmissionRow[]> {
  const rows = await Promise.all(ids.map((id) => gateway.ctx.submissions.get(id)));
  return rows.filter((row): row is SubmissionRow => row !== undefined);
}

/** One submission through the stores, or undefined when it is not committed. */
export function submissionRow(gateway: Pick<Gateway, "ctx">, id: string): Promise<SubmissionRow | undefined> {
  return gateway.ctx.submissions.get(id);
}

/** All of a company's submissions, newest first: the owner's log, page by page. */
export async function companySubmissions(gateway: Pick<Gateway, "ctx">, companyId: string): Promise<SubmissionRow[]> {
  const rows: SubmissionRow[] = [];
  for (let cursor: string | undefined; ; ) {
    const page = await gateway.ctx.submissions.listPage(companyId, { limit: 500, ...(cursor ? { cursor } : {}) });
    rows.push(...page.slice(0, 500));
    if (page.length <= 500) return rows;
    cursor = page[499]?.id;
  }
}

export async function attemptRows(
  gateway: Pick<Gateway, "ctx">,
  ids: readonly string[],
): Promise<SubmissionAttemptRow[]> {
  return (await Promise.all(ids.map((id) => gateway.ctx.submissions.attemptsOf(id)))).flat();
}

// The owner suites' reads (owner API, console).

/** How many of a company's submissions are in `status` now, read through the owner log's own query. */
export async function countWithStatus(
  gateway: Pick<Gateway, "ctx">,
  companyId: string,
  status: SubmissionRow["status"],
): Promise<number> {
  let count = 0;
  for (let cursor: string | undefined; ; ) {
    const page = await gateway.ctx.submissions.listPage(companyId, {
      status,
      limit: 500,
      ...(cursor ? { cursor } : {}),
    });
    count += Math.min(page.length, 500);
    if (page.length <= 500) return count;
    cursor = page[499]?.id;
  }
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
