import type { GatewayContext } from "../context.js";
import { ERASURE_CHUNK } from "./erase-submissions.js";
import type { PersonMatch } from "./person-match.js";

/**
 * Drops the native payload of a company's mapping failures (requests a guardrail refused, kept for the owner to fix
 * the profile) that mention the person: no profile produced a body there, so there is no contact column to compare,
 * only the text as received. Scanned newest first on the (company, id) index, a chunk per transaction.
 */
export async function eraseMappingFailures(
  ctx: GatewayContext,
  companyId: string,
  person: PersonMatch,
): Promise<number> {
  const select = ctx.sqlite.prepare<[string, string, number], { id: string; rawPayload: string | null }>(
    `SELECT id, raw_payload AS rawPayload FROM mapping_failures WHERE company_id = ? AND id < ?
     ORDER BY id DESC LIMIT ?`,
  );
  const erase = ctx.sqlite.prepare("UPDATE mapping_failures SET raw_payload = NULL WHERE id = ?");
  let erased = 0;
  let before = "\uffff";
  for (;;) {
    const step = ctx.sqlite
      .transaction(() => {
        const rows = select.all(companyId, before, ERASURE_CHUNK);
        for (const row of rows) {
          if (row.rawPayload === null || !person.mentions(row.rawPayload)) continue;
          erase.run(row.id);
          erased++;
        }
        return { scanned: rows.length, last: rows.at(-1)?.id };
      })
      .immediate();
    if (step.scanned < ERASURE_CHUNK || step.last === undefined) return erased;
    before = step.last;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
