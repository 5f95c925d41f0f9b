import type { Submission } from "../types.js";

/** The log's filter as the URL holds it ("" is "any"); `from`/`to` are ISO instants bounding createdAt. */
export interface LogFilter {
  status: string;
  keyId: string;
  /** A hook connection's submissions only (absent or "": any). */
  connectionId?: string;
  kind: string;
  from: string;
  to: string;
}

export function matchesFilter(row: Submission, filter: LogFilter): boolean {
  if (filter.status && row.status !== filter.status) return false;
  if (filter.keyId && row.vendorKeyId !== filter.keyId) return false;
  if (filter.connectionId && row.connectionId !== filter.connectionId) return false;
  if (filter.kind && row.kind !== filter.kind) return false;
  const created = Date.parse(row.createdAt);
  if (filter.from && created < Date.parse(filter.from)) return false;
  if (filter.to && created > Date.parse(filter.to)) return false;
  return true;
}

/**
 * One page of the log kept current by the live stream, its filter still applied: a change that no longer matches
 * leaves the page, a new match enters it (on the newest page only: an older page holds a fixed stretch of the
 * history), a change older than what the page shows is ignored. The newest page keeps `pageSize` rows: one pushed off
 * its end moves the "older" cursor.
 */
export class LiveRows {
  constructor(
    public rows: Submission[],
    public nextCursor: string | null,
    private readonly filter: LogFilter,
    private readonly newestPage: boolean,
    private readonly pageSize: number,
  ) {}

  /** True when the page changed. */
  apply(row: Submission): boolean {
    const at = this.rows.findIndex((r) => r.submissionId === row.submissionId);
    const current = this.rows[at];
    if (current && row.updatedAt < current.updatedAt) return false;
    const matches = matchesFilter(row, this.filter);
    if (current) {
      if (matches) this.rows[at] = row;
      else this.rows.splice(at, 1);
      return true;
    }
    if (!matches || !this.newestPage) return false;
    // Ids are time-ordered: the page is newest first by id.
    const before = this.rows.findIndex((r) => r.submissionId < row.submissionId);
    // Older than the whole page, with older pages after it: it belongs to those.
    if (before === -1 && this.nextCursor !== null) return false;
    this.rows.splice(before === -1 ? this.rows.length : before, 0, row);
    if (this.rows.length > this.pageSize) {
      this.rows.length = this.pageSize;
      this.nextCursor = this.rows.at(-1)?.submissionId ?? this.nextCursor;
    }
    return true;
  }
}
