/** A value now (a cache hit), or a promise of it (a read): intake pays for no promise on the hot path (D-221). */
export type MaybePromise<T> = T | Promise<T>;
