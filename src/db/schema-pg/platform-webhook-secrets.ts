import { pgTable, text } from "drizzle-orm/pg-core";
import { companies } from "./companies.js";

/** PostgreSQL twin of `../schema/platform-webhook-secrets.ts`. */
export const platformWebhookSecrets = pgTable("platform_webhook_secrets", {
  companyId: text("company_id")
    .primaryKey()
    .references(() => companies.id),
  sealedSecrets: text("sealed_secrets").notNull(),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});
