import { type ReferenceConfig, text } from "drizzle-orm/sqlite-core";

/** A row's required link to another table's row: a text column, NOT NULL, with its foreign key. */
export function reference(name: string, target: ReferenceConfig["ref"], actions?: ReferenceConfig["actions"]) {
  return text(name).notNull().references(target, actions);
}
