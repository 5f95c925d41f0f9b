import {
  CamelCasePlugin,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  type KyselyConfig,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from "kysely";
import type { SqliteDatabase } from "../../../db/sqlite.js";
import type { SqliteGate } from "../sqlite-gate.js";
import type { Database, Sql } from "./database.js";
import { fromSqliteRow, toSqliteParameter } from "./values.js";

/** Prepared statements kept per connection, by their text: the stores' statements are few and fixed in shape. */
const MAX_STATEMENTS = 500;

/** The statements of the one SQLite connection, each prepared (compiled) once and run on the calling thread. */
class SqliteStatements {
  readonly #prepared = new Map<string, ReturnType<SqliteDatabase["prepare"]>>();

  constructor(readonly sqlite: SqliteDatabase) {}

  run<R>(query: CompiledQuery): QueryResult<R> {
    let statement = this.#prepared.get(query.sql);
    if (!statement) {
      if (this.#prepared.size >= MAX_STATEMENTS) this.#prepared.clear();
      statement = this.sqlite.prepare(query.sql);
      this.#prepared.set(query.sql, statement);
    }
    const parameters = query.parameters.map(toSqliteParameter);
    if (statement.reader) {
      const rows = statement.all(parameters) as Record<string, unknown>[];
      return { rows: rows.map(fromSqliteRow) as R[] };
    }
    const { changes, lastInsertRowid } = statement.run(parameters);
    return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
  }
}

/**
 * A connection that checks the gate in the same turn as it runs the statement, so none from outside joins a
 * transaction begun meanwhile (D-275). Its own Kysely driver: transactions are the gate's, never Kysely's.
 */
class GatedConnection implements DatabaseConnection, Driver {
  constructor(
    readonly statements: SqliteStatements,
    readonly gate: SqliteGate | undefined,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.gate) while (this.gate.busy) await this.gate.pass();
    return this.statements.run<R>(query);
  }

  // biome-ignore lint/correctness/useYield: better-sqlite3 reads a statement's rows at once
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("streaming is not used on SQLite");
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return this;
  }
  async beginTransaction(): Promise<void> {
    throw new Error("a SQLite transaction runs through the storage's transaction(), holding the gate");
  }
  async init(): Promise<void> {}
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}

/**
 * The query builder of a SQLite transaction (`inside`): it carries the connection's statements, so that a write inside
 * the open transaction may run at once, without the builder's promise turns (D-363).
 */
class InsideSql extends Kysely<Database> {
  constructor(
    config: KyselyConfig,
    readonly statements: Pick<SqliteStatements, "run">,
  ) {
    super(config);
  }
}

/** The statements `db` runs on when it is a SQLite transaction's own builder; undefined for any other builder. */
export function statementsInside(db: Sql): Pick<SqliteStatements, "run"> | undefined {
  return db instanceof InsideSql ? db.statements : undefined;
}

/** The column names are the schema's in snake_case; the rows' JSON values keep their own keys. */
export const camelCase = () => new CamelCasePlugin({ maintainNestedObjectKeys: true });

/**
 * The query builders of one SQLite connection (D-275): `outside`, for the stores of the context, whose statements wait
 * at the gate while a transaction holds the connection; `inside`, for the stores bound to that transaction.
 */
export function sqliteSql(sqlite: SqliteDatabase, gate: SqliteGate): { outside: Sql; inside: Sql } {
  const statements = new SqliteStatements(sqlite);
  const config = (connection: GatedConnection): KyselyConfig => ({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => connection,
      createIntrospector: (db: Kysely<unknown>) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
    plugins: [camelCase()],
  });
  return {
    outside: new Kysely<Database>(config(new GatedConnection(statements, gate))),
    inside: new InsideSql(config(new GatedConnection(statements, undefined)), statements),
  };
}
