import { defineConfig } from "drizzle-kit";

/** The gateway's schema on PostgreSQL (DATABASE_URL): its own migrations folder (docs/decisions.md, D-226). */
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/schema-pg.ts",
  out: "./migrations/gateway-pg",
});
