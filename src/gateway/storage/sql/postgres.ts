import { Kysely, PostgresDialect, type PostgresPool } from "kysely";
import pg from "pg";
import { preparedName } from "./compiled.js";
import type { Database, Sql } from "./database.js";
import { camelCase } from "./sqlite.js";
import { toPostgresParameter } from "./values.js";

/** int8 as a number, as SQLite returns it (node-postgres gives text: it may pass 2^53, which ms and counts do not). */
const NUMBERS: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === pg.types.builtins.INT8
      ? Number
      : pg.types.getTypeParser(oid, format as "text")) as pg.CustomTypesConfig["getTypeParser"],
};

/**
 * Clients whose statement went unanswered past the pool's query timeout (a partition, D-335): the statement may still
 * be on its way, and node-postgres would queue the next one behind it, so the client is dropped when released.
 */
const unanswered = new WeakSet<pg.ClientBase>();

/** What node-postgres rejects a statement with when its `query_timeout` runs out. */
const QUERY_TIMEOUT = "Query read timeout";

/**
 * One statement on `client`: its parameters as PostgreSQL stores them, its int8 values as numbers; a compiled one
 * (a hot path's) as a prepared statement of the connection (D-362).
 */
async function run(client: pg.PoolClient, sqlText: string, parameters: readonly unknown[]) {
  try {
    const name = preparedName(sqlText);
    const values = parameters.map(toPostgresParameter);
    return await client.query({ ...(name ? { name } : {}), text: sqlText, values, types: NUMBERS });
  } catch (error) {
    if ((error as Error).message === QUERY_TIMEOUT) unanswered.add(client);
    throw error;
  }
}

/**
 * A client of the pool for statements of one's own, listening for its connection's `error` (node-postgres does only
 * while it is idle: the process would end), and dropped when released broken.
 */
export async function checkOut(pool: pg.Pool): Promise<pg.PoolClient> {
  const client = await pool.connect();
  let broken = false;
  const onError = () => {
    broken = true;
  };
  client.on("error", onError);
  const release = client.release.bind(client);
  return Object.assign(client, {
    release: (destroy?: boolean | Error) => {
      client.off("error", onError);
      release(broken || unanswered.has(client) || destroy === true || destroy instanceof Error);
    },
  });
}

/**
 * A query builder on the clients `connect` gives. Without `end`, the client is an open transaction's, which its owner
 * releases.
 */
function sqlOn(connect: () => Promise<pg.PoolClient>, end?: () => Promise<void>): Sql {
  const pool: PostgresPool = {
    async connect() {
      const client = await connect();
      return {
        query: (sqlText: string, parameters: readonly unknown[]) => run(client, sqlText, parameters),
        release: () => end && client.release(),
      } as unknown as Awaited<ReturnType<PostgresPool["connect"]>>;
    },
    end: end ?? (async () => undefined),
  };
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins: [camelCase()] });
}

/** The query builder of a PostgreSQL pool (D-275): each statement on any free connection, transactions on one. */
export function postgresSql(pool: pg.Pool): Sql {
  return sqlOn(
    () => checkOut(pool),
    () => pool.end(),
  );
}

/** The query builder of one checked-out client (an open transaction's): its statements run on that client only. */
export function postgresSqlOn(client: pg.PoolClient): Sql {
  return sqlOn(async () => client);
}
