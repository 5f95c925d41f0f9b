import { badRequest } from "../../../http/errors.js";
import type { CallerCtx } from "../../context.js";
import { type FeedItemRow, itemsAfterQuery, lastSequence, latestItemsQuery } from "../store/feed.js";

/** Documented start cursor: replays every retained item of the caller's feed (docs/sandbox.md). */
export const START_CURSOR = "0";

export interface FeedPage {
  items: FeedItemRow[];
  nextCursor: string;
  hasMore: boolean;
}

/**
 * GET /api/partner/v1/jobs (§2.2, §4.1 rules 1–2). Without a cursor: the latest page, oldest first, with a cursor
 * after its last item and nothing more to follow. With one: the items after it, `hasMore` when another page follows;
 * an empty page keeps the cursor. Both are ranges of the (installer company, sequence) index — the cost does not grow
 * with history. A cursor past the feed's last sequence was never given by this feed (another database): 400.
 */
export function readFeed({ ctx, input }: { ctx: CallerCtx; input: { cursor?: number; limit: number } }): FeedPage {
  const installerCompanyId = ctx.caller.companyId;
  if (input.cursor === undefined) {
    const items = latestItemsQuery(ctx.db, installerCompanyId, input.limit).all().reverse();
    const last = items.at(-1);
    return { items, nextCursor: last ? String(last.sequence) : START_CURSOR, hasMore: false };
  }
  if (input.cursor > lastSequence(ctx.db)) {
    throw badRequest("query.cursor: is not a cursor of this feed", { field: "query.cursor" });
  }
  const rows = itemsAfterQuery(ctx.db, installerCompanyId, input.cursor, input.limit + 1).all();
  const items = rows.slice(0, input.limit);
  const last = items.at(-1);
  return { items, nextCursor: last ? String(last.sequence) : String(input.cursor), hasMore: rows.length > input.limit };
}
