import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Seed, seedSchema } from "./seed-schema.js";

/** The shipped seed, at the project root for `src/` and `dist/` alike. */
export const DEFAULT_SEED_PATH = fileURLToPath(new URL("../../../seeds/default.json", import.meta.url));

export class SeedError extends Error {
  override name = "SeedError";
}

/** Reads and validates a seed file; a bad one stops start-up with the path of the offending entry. */
export function loadSeed(path: string = DEFAULT_SEED_PATH): Seed {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new SeedError(`cannot read seed ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const result = seedSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new SeedError(`invalid seed ${path}: ${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`);
  }
  return result.data;
}
