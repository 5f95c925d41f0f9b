import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: "./src/sandbox/db/schema/index.ts",
  out: "./migrations/sandbox",
});
