import { ApiError } from "../../http/errors.js";
import type { ProfileEngine } from "../profiles/index.js";
import type { JsonValue } from "./bodies/index.js";
import { evaluateDeclared } from "./declared-expression.js";
import type { FetchDeclaration } from "./presets/index.js";

/** Notified records one payload may name (Meta batches up to 1,000 in one POST). */
const MAX_TARGETS = 1_000;

/**
 * The records a notification names, each as the values its fetch URL is filled with: the declared `ids` expression's
 * strings (`{id}`) or objects of strings. A notification naming none stores nothing (LinkedIn's DELETED action); one
 * whose expression fails is held with the reason. Each target is also what the fetched record's profile reads as
 * `$notification` (Acuity's `{"id": id, "action": action}`: docs/connections.md, "Fetch after notify").
 */
export async function fetchTargets(
  engine: ProfileEngine,
  fetch: FetchDeclaration,
  tree: JsonValue,
): Promise<Record<string, string>[] | { held: string }> {
  const evaluated = await evaluateDeclared(engine, fetch.ids, tree);
  if (!evaluated.ok) return { held: `the fetch's ids expression failed: ${evaluated.reason}` };
  const { value } = evaluated;
  if (value === undefined || value === null) return [];
  const items = Array.isArray(value) ? value : [value];
  if (items.length > MAX_TARGETS) {
    throw new ApiError("payload_too_large", `the notification names more than ${MAX_TARGETS} records`);
  }
  return items.flatMap((item) => {
    if (typeof item === "string" || typeof item === "number") return [{ id: String(item) }];
    if (typeof item !== "object" || item === null || Array.isArray(item)) return [];
    const target: Record<string, string> = {};
    for (const [name, v] of Object.entries(item)) {
      if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") target[name] = String(v);
    }
    return Object.keys(target).length > 0 ? [target] : [];
  });
}
