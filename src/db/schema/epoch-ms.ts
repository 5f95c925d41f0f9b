import { customType } from "drizzle-orm/sqlite-core";

/**
 * A time in epoch milliseconds: `integer` on SQLite, `bigint` on PostgreSQL (schema-pg.ts), a number in the rows of
 * both (a PostgreSQL `integer` ends in 2038 in seconds and long ago in milliseconds). The only custom column type of
 * the schema, which is how schema-pg.ts tells it apart from a plain integer.
 */
export const epochMs = customType<{ data: number; driverData: number }>({
  dataType: () => "integer",
});
