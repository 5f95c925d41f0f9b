import { Kysely, PostgresDialect, type PostgresPool } from "kysely";
import type pg from "pg";
import type { Database, Sql } from "./database.js";
import { camelCase } from "./sqlite.js";
import { toPostgresParameter } from "./values.js";

/**
 * The pool as Kysely's driver takes it, with each statement's parameters as PostgreSQL stores them (values.ts: a JSON
 * column's object or array as JSON text).
 */
function convertingPool(pool: pg.Pool): PostgresPool {
  return {
    async connect() {
      const client = await pool.connect();
      return {
        query: (sqlText: string, parameters: readonly unknown[]) =>
          client.query(sqlText, parameters.map(toPostgresParameter)),
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
        query: (sqlText: string, parameters: readonly unknown[]) =>
          client.query(sqlText, parameters.map(toPostgresParameter)),
        // The transaction's owner releases the client.
        release: () => undefined,
      }) as unknown as Awaited<ReturnType<PostgresPool["connect"]>>,
    end: async () => undefined,
  };
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins: [camelCase()] });
}
