/**
 * Whether an error means "the database or Redis cannot be reached, or cannot write, right now" — an outage the work
 * waits out (retried, never dropped; intake answers 503) — as opposed to a bug or a refused statement (a constraint,
 * a syntax error, a wrong type), which no retry mends. Recognised by what the drivers really throw (test/gateway/
 * outage/: each produced against the real server, through a fault proxy, or on a real file), looked for through
 * wrappers: drizzle's `DrizzleQueryError` and pg-pool's connect timeout carry the driver's error as `cause`, Node's
 * connect to several addresses throws an `AggregateError`.
 */

/** What kind of outage, for the log line and the answer (a closed list). */
export type OutageReason =
  /** No connection can be made: refused, no route, no name, no pool slot or connection in time. */
  | "unreachable"
  /** A connection broke under a statement or command: reset, terminated, closed. */
  | "connection_lost"
  /** The server is stopping or starting (admin or crash shutdown, Redis loading its data). */
  | "restarting"
  /** The server refuses more work now: too many connections, out of memory, locked past the busy timeout. */
  | "overloaded"
  /** Writes are refused: a read-only file, file system or standby, a replica. */
  | "read_only"
  /** No room left: the disk, SQLite's page limit, Redis's maxmemory. */
  | "full"
  /** The file cannot be opened or read or written (an I/O error). */
  | "io_error";

/** The error that made it an outage, described for a log line: no query, no parameter, no credential. */
export interface OutageCause {
  reason: OutageReason;
  /** The driver's own code (SQLSTATE, errno, SQLITE_…) or, without one, the error's name. */
  code: string;
  message: string;
}

/** Node's socket errors that mean the peer cannot be reached or went away (errno codes, on pg's and ioredis's errors). */
const SOCKET_CODES: Record<string, OutageReason> = {
  ECONNREFUSED: "unreachable",
  EHOSTUNREACH: "unreachable",
  ENETUNREACH: "unreachable",
  ENETDOWN: "unreachable",
  EHOSTDOWN: "unreachable",
  ETIMEDOUT: "unreachable",
  // A name that does not resolve now (DNS down, a service record moving in a failover). A name that never resolved
  // stops the start, which opens the database first.
  EAI_AGAIN: "unreachable",
  ENOTFOUND: "unreachable",
  ECONNRESET: "connection_lost",
  ECONNABORTED: "connection_lost",
  EPIPE: "connection_lost",
};

/**
 * PostgreSQL's SQLSTATEs (Appendix A) that mean the server cannot take the work now. Not here: serialization failures
 * and deadlocks (40001, 40P01: the server works, the transaction is retried by whoever runs it) and statement timeouts
 * (57014: the server answered; a statement too slow is not an outage of the server).
 */
const SQLSTATES: Record<string, OutageReason> = {
  "57P01": "restarting", // admin_shutdown: terminated by the administrator or a fast shutdown
  "57P02": "restarting", // crash_shutdown
  "57P03": "restarting", // cannot_connect_now: starting up, or in recovery
  "53000": "overloaded", // insufficient_resources
  "53200": "overloaded", // out_of_memory
  "53300": "overloaded", // too_many_connections
  "53100": "full", // disk_full
  "25006": "read_only", // read_only_sql_transaction: a standby after a failover, or default_transaction_read_only
  "58030": "io_error", // io_error
};

/** Errors node-postgres and pg-pool throw without a code, by their exact message. */
const PG_MESSAGES: Record<string, OutageReason> = {
  "Connection terminated": "connection_lost",
  "Connection terminated unexpectedly": "connection_lost",
  "Client has encountered a connection error and is not queryable": "connection_lost",
  "Client was closed and is not queryable": "connection_lost",
  "Connection terminated due to connection timeout": "unreachable",
  "timeout expired": "unreachable",
  "timeout exceeded when trying to connect": "unreachable",
  "Query read timeout": "unreachable",
  // The pool is closing (the process stops): nothing is lost by waiting, and the loop's own close ends the wait.
  "Cannot use a pool after calling end on the pool": "unreachable",
};

/** Errors ioredis throws without a code, by their exact message or their name. */
const REDIS_MESSAGES: Record<string, OutageReason> = {
  "Connection is closed.": "connection_lost",
  "Stream isn't writeable and enableOfflineQueue options is false": "unreachable",
  "Command timed out": "unreachable",
  "None of startup nodes is available": "unreachable",
};
const REDIS_NAMES: Record<string, OutageReason> = {
  MaxRetriesPerRequestError: "unreachable",
  ClusterAllFailedError: "unreachable",
};

/** Redis's own refusals (a `ReplyError` whose message starts with the word) that pass once the server recovers. */
const REDIS_REPLIES: Record<string, OutageReason> = {
  LOADING: "restarting",
  MASTERDOWN: "restarting",
  CLUSTERDOWN: "restarting",
  TRYAGAIN: "overloaded",
  BUSY: "overloaded",
  READONLY: "read_only",
  MISCONF: "io_error", // it cannot save its snapshot, and refuses writes until it can
  OOM: "full", // maxmemory reached with noeviction (as BullMQ asks)
};

/**
 * better-sqlite3's codes (primary, then extended: SQLITE_READONLY_DBMOVED, SQLITE_IOERR_WRITE…). SQLITE_BUSY reaches
 * the caller only once the connection's busy timeout has run out. Not here: SQLITE_CORRUPT and SQLITE_NOTADB (no
 * retry mends them), SQLITE_LOCKED (a conflict inside one connection: a bug).
 */
const SQLITE_CODES: Record<string, OutageReason> = {
  SQLITE_FULL: "full",
  SQLITE_READONLY: "read_only",
  SQLITE_IOERR: "io_error",
  SQLITE_CANTOPEN: "io_error",
  SQLITE_BUSY: "overloaded",
};

/** How deep the causes of one error are followed (a wrapper of a wrapper of the driver's error is two). */
const MAX_DEPTH = 8;

export function isStoreOutage(error: unknown): boolean {
  return outageCause(error) !== undefined;
}

/** The outage behind `error` (itself, a cause, one of an AggregateError's errors), if it is one. */
export function outageCause(error: unknown): OutageCause | undefined {
  return find(error, 0, new Set());
}

function find(error: unknown, depth: number, seen: Set<unknown>): OutageCause | undefined {
  if (typeof error !== "object" || error === null || depth > MAX_DEPTH || seen.has(error)) return undefined;
  seen.add(error);
  const own = classify(error);
  if (own) return own;
  const nested = [
    (error as { cause?: unknown }).cause,
    ...(error instanceof AggregateError && Array.isArray(error.errors) ? error.errors : []),
  ];
  for (const inner of nested) {
    const found = find(inner, depth + 1, seen);
    if (found) return found;
  }
  return undefined;
}

function classify(error: object): OutageCause | undefined {
  const code = stringField(error, "code");
  const name = stringField(error, "name") ?? "Error";
  const message = stringField(error, "message") ?? "";
  const cause = (reason: OutageReason | undefined, as: string) =>
    reason ? { reason, code: as, message: safeMessage(message) } : undefined;
  if (code) {
    // SQLSTATE class 08, connection exception: every one of them means the connection is gone or was never made.
    const byCode = SOCKET_CODES[code] ?? SQLSTATES[code] ?? (/^08[0-9A-Z]{3}$/.test(code) ? "unreachable" : undefined);
    if (byCode) return cause(byCode, code);
    const sqlite = /^(SQLITE_[A-Z]+)(?:_[A-Z_]+)?$/.exec(code)?.[1];
    if (sqlite) return cause(SQLITE_CODES[sqlite], code);
  }
  const byMessage = PG_MESSAGES[message] ?? REDIS_MESSAGES[message] ?? REDIS_NAMES[name];
  if (byMessage) return cause(byMessage, code ?? name);
  if (name === "ReplyError") {
    const word = /^[A-Z]+/.exec(message)?.[0];
    if (word) return cause(REDIS_REPLIES[word], word);
  }
  return undefined;
}

function stringField(error: object, field: "code" | "name" | "message"): string | undefined {
  const value: unknown = (error as Record<string, unknown>)[field];
  return typeof value === "string" ? value : undefined;
}

/**
 * The driver's message is about the connection (an address, a state), never a query's parameters (those are in the
 * wrappers', which are not used); a URL's credentials are masked anyway, should a resolver quote one.
 */
function safeMessage(message: string): string {
  return message.replace(/\/\/[^/@\s]*@/g, "//[redacted]@").slice(0, 200);
}
