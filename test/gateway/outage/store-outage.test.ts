import { connect, createServer } from "node:net";
import Database from "better-sqlite3";
import { ReplyError } from "ioredis";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { isStoreOutage, outageCause } from "../../../src/gateway/outage/index.js";
import { ApiError } from "../../../src/http/errors.js";

/**
 * The errors the servers cannot be made to give on demand, built with the drivers' own classes (the ones produced for
 * real are in store-outage.{postgres,redis,sqlite}.test.ts), and how errors are looked into.
 */

const pgError = (code: string, message: string) => Object.assign(new pg.DatabaseError(message, 0, "error"), { code });

describe("PostgreSQL states no test can make the server send", () => {
  it("SQLSTATE class 08 (connection exception), whatever its subclass", () => {
    for (const code of ["08000", "08001", "08003", "08004", "08006", "08007", "08P01"]) {
      expect(outageCause(pgError(code, "connection failure"))).toMatchObject({ reason: "unreachable", code });
    }
  });

  it("57P02 crash shutdown, 57P03 cannot connect now (starting, in recovery), 53100 disk full, 58030 I/O error", () => {
    expect(outageCause(pgError("57P02", "terminating connection because of crash of another server process"))).toEqual(
      expect.objectContaining({ reason: "restarting" }),
    );
    expect(outageCause(pgError("57P03", "the database system is starting up"))?.reason).toBe("restarting");
    expect(outageCause(pgError("53100", "could not extend file: No space left on device"))?.reason).toBe("full");
    expect(outageCause(pgError("58030", "could not read block"))?.reason).toBe("io_error");
  });

  it("not a neighbouring state: 40001 serialization failure and 40P01 deadlock are the transaction's to retry", () => {
    expect(isStoreOutage(pgError("40001", "could not serialize access"))).toBe(false);
    expect(isStoreOutage(pgError("40P01", "deadlock detected"))).toBe(false);
  });
});

describe("Redis refusals no test here produces", () => {
  it("LOADING (a restart reading its data), MASTERDOWN, MISCONF (it cannot save), BUSY (a long script)", () => {
    const reasons = [
      "LOADING Redis is loading the dataset in memory",
      "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
      "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk.",
      "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.",
    ].map((message) => outageCause(new ReplyError(message))?.reason);
    expect(reasons).toEqual(["restarting", "restarting", "io_error", "overloaded"]);
  });

  it("the word alone is not enough: only Redis's own reply errors are read that way", () => {
    expect(isStoreOutage(new Error("BUSY doing something else"))).toBe(false);
    expect(isStoreOutage(new ReplyError("ERR wrong number of arguments"))).toBe(false);
  });
});

describe("SQLite I/O errors", () => {
  // An I/O error cannot be had on demand without a failing device (device-mapper's error target, which needs more
  // than a test may do): the driver's own class, with the codes SQLite documents.
  it("SQLITE_IOERR and its extended codes", () => {
    for (const code of ["SQLITE_IOERR", "SQLITE_IOERR_WRITE", "SQLITE_IOERR_FSYNC", "SQLITE_IOERR_SHORT_READ"]) {
      expect(outageCause(new Database.SqliteError("disk I/O error", code))).toMatchObject({ reason: "io_error", code });
    }
  });

  it("not SQLITE_CORRUPT or SQLITE_LOCKED: no wait mends them", () => {
    expect(isStoreOutage(new Database.SqliteError("database disk image is malformed", "SQLITE_CORRUPT"))).toBe(false);
    expect(isStoreOutage(new Database.SqliteError("database table is locked", "SQLITE_LOCKED"))).toBe(false);
  });
});

describe("how an error is looked into", () => {
  it("through a chain of causes: an ApiError wrapping a wrapper of the driver's error", () => {
    const driver = Object.assign(new Error("connect ECONNREFUSED 10.0.0.5:5432"), { code: "ECONNREFUSED" });
    const wrapper = new Error("Failed query: select 1\nparams: ", { cause: driver });
    const error = new ApiError("internal", "internal error", { cause: wrapper });
    expect(outageCause(error)).toEqual({
      reason: "unreachable",
      code: "ECONNREFUSED",
      message: "connect ECONNREFUSED 10.0.0.5:5432",
    });
  });

  it("through Node's AggregateError, from a connect to a name with several addresses", async () => {
    const port = await closedPort();
    const error = await new Promise<unknown>((resolve) => {
      const socket = connect({ host: "localhost", port, autoSelectFamily: true });
      socket.once("error", resolve);
    });
    // An AggregateError where localhost has an IPv4 and an IPv6 address, a plain one elsewhere: an outage either way.
    expect(isStoreOutage(error)).toBe(true);
    expect(isStoreOutage(new AggregateError([new Error("boom"), error], "all failed"))).toBe(true);
  });

  it("a cycle of causes ends, and proves nothing", () => {
    const a = new Error("a");
    const b = new Error("b", { cause: a });
    Object.assign(a, { cause: b });
    expect(isStoreOutage(a)).toBe(false);
  });

  it("only errors: a string, null, undefined or a bare code are not outages", () => {
    for (const value of ["ECONNREFUSED", null, undefined, 0]) expect(isStoreOutage(value)).toBe(false);
    expect(isStoreOutage({ code: "23505" })).toBe(false);
    // The positive control: the same shape with an outage's code is one.
    expect(isStoreOutage({ code: "ECONNRESET" })).toBe(true);
  });

  it("the message logged never carries credentials of a URL, and is bounded", () => {
    const error = Object.assign(
      new Error(`getaddrinfo EAI_AGAIN redis://gateway:hunter2@cache.internal ${"x".repeat(500)}`),
      {
        code: "EAI_AGAIN",
      },
    );
    const cause = outageCause(error);
    expect(cause?.message).not.toContain("hunter2");
    expect(cause?.message).toContain("//[redacted]@cache.internal");
    expect(cause?.message.length).toBeLessThanOrEqual(200);
  });
});

function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
