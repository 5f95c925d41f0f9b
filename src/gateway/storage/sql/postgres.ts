import { Kysely, PostgresDialect, type PostgresPool } from "kysely";
import pg from "pg";
import type { Database, Sql } from "./database.js";
import { camelCase } from "./sqlite.js";
import { toPostgresParameter } from "./values.js";

/**
 * int8 (bigint: epoch milliseconds, counts) as a number, as SQLite returns it: node-postgres gives text by default, since
 * a bigint may exceed 2^53 — the gateway's never do (times in ms, row counts).
 */
const NUMBERS: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === pg.types.builtins.INT8
      ? Number
      : pg.types.getTypeParser(oid, format as "text")) as pg.CustomTypesConfig["getTypeParser"],
};

/** One statement on `client`: its parameters as PostgreSQL stores them, its int8 values as numbers. */
function run(client: pg.PoolClient, sqlText: string, parameters: readonly unknown[]) {
  return client.query({ text: sqlText, values: parameters.map(toPostgresParameter), types: NUMBERS });
}

/**
 * The pool as Kysely's driver takes it, with each statement's parameters as PostgreSQL stores them (values.ts: a JSON
 * column's object or array as JSON text).
 */
function convertingPool(pool: pg.Pool): PostgresPool {
  return {
    async connect() {
      const client = await pool.connect();
      return {
        query: (sqlText: string, parameters: readonly unknown[]) => run(client, sqlText, parameters),
        release: () => client.release(),
      } as unknown as Awaited<ReturnType<PostgresPool["connect"]>>;
    },
    end: () => pool.end(),
  };
}

/** The query builder of a PostgreSQL pool (D-275): each statement on any free connection, transactions on one. */
export function postgresSql(pool: pg.Pool): Sql {
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: convertingPool(pool) }), plugins: [camelCase()] });
}

/** The query builder of one checked-out client (an open transaction's): its statements run on that client only. */
export function postgresSqlOn(client: pg.PoolClient): Sql {
  const pool: PostgresPool = {
    connect: async () =>
      ({
        query: (sqlText: string, parameters: readonly unknown[]) => run(client, sqlText, parameters),
        // The transaction's owner releases the client.
        release: () => undefined,
      }) as unknown as Awaited<ReturnType<PostgresPool["connect"]>>,
    end: async () => undefined,
  };
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins: [camelCase()] });
}
