import type { Gateway } from "../../src/gateway/create-gateway.js";
import type { SubmissionAttemptRow, SubmissionRow } from "../../src/gateway/storage/submissions/index.js";

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
