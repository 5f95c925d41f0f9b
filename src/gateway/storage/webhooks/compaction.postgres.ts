import type pg from "pg";
import { checkOut } from "../sql/postgres.js";
import type { WebhookCompaction } from "./compaction.js";

/**
 * PostgreSQL: an UPDATE or DELETE leaves the old row version (and its TOASTed payload) until VACUUM removes it. So a
 * VACUUM of the tables an erasure rewrites or deletes from, once its transactions have committed (VACUUM cannot run in
 * one), on a connection of its own without the pool's statement timeout; it takes no lock that stops intake or
 * delivery (D-241, D-257). What it does not do (zero freed space, WAL, backups) is in D-241.
 */
export function postgresCompaction(pool: pg.Pool): WebhookCompaction {
  return {
    async afterErasure(inTransaction) {
      if (inTransaction) throw new Error("compactAfterErasure runs after the erasure's transaction has committed");
      const client = await checkOut(pool);
      let broken = false;
      try {
        await client.query("SET statement_timeout = 0");
        await client.query("VACUUM webhook_events, webhook_deliveries, webhook_attempts, platform_events");
        return true;
      } catch (error) {
        broken = true;
        throw error;
      } finally {
        await client.query("RESET statement_timeout").catch(() => {
          broken = true;
        });
        client.release(broken);
      }
    },
  };
}
