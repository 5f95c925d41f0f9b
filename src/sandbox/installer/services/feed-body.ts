import { API_VERSION } from "../../../contract/api-version.js";
import type { FeedPage } from "./read-feed.js";

/**
 * The §4.1 feed answer `{apiVersion, resources: [{sequence, changedAt, resource}], nextCursor, hasMore}`, written
 * around the items' stored JSON: a page is the stored bytes of its items, never re-serialised.
 */
export function encodeFeedPage(page: FeedPage): string {
  let resources = "";
  for (const item of page.items) {
    resources += `${resources ? "," : ""}{"sequence":${item.sequence},"changedAt":${JSON.stringify(item.changedAt)},"resource":${item.resource}}`;
  }
  return `{"apiVersion":${JSON.stringify(API_VERSION)},"resources":[${resources}],"nextCursor":${JSON.stringify(page.nextCursor)},"hasMore":${page.hasMore}}`;
}
