/**
 * What the end of an erasure does for the webhook tables, so that no old version of an erased copy (an envelope, a
 * delivery's body, an attempt's excerpt, a platform event's body) stays in the database (D-241, D-257). It differs by
 * dialect and is given to the store by the storage factory.
 */
export interface WebhookCompaction {
  /** True once the webhook tables hold no old row version; `inTransaction`: the store is bound to an open one. */
  afterErasure(inTransaction: boolean): Promise<boolean>;
}

/**
 * SQLite: nothing of its own. `secure_delete` zeroes what a statement overwrites, and the submissions store's
 * truncating checkpoint empties the WAL of the whole file, these tables' pages included (D-257).
 */
export const SQLITE_COMPACTION: WebhookCompaction = {
  afterErasure: async () => true,
};
