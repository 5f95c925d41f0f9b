import { sqliteTable, text } from "drizzle-orm/sqlite-core";
import { companies } from "./companies.js";

/**
 * The secrets a company's platform subscription signs with (§6.3.3), as the receiver holds them: a sealed
 * `SecretRingState` (§6.5.2 the owner loads a pending version; §6.5.3 activation starts the previous one's overlap).
 * Without a row the company's receiver endpoint answers 404.
 */
export const platformWebhookSecrets = sqliteTable("platform_webhook_secrets", {
  companyId: text("company_id")
    .primaryKey()
    .references(() => companies.id),
  sealedSecrets: text("sealed_secrets").notNull(),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});
