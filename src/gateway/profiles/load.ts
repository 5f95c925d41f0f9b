import { createHash } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { z } from "zod";
import { type GoldenSample, type LoadedProfile, PROFILE_KINDS } from "./types.js";

/** A profile on disk (`profiles/<vendor>/`): files a person can read and diff. */
export const PROFILE_MANIFEST = "profile.json";
export const PROFILE_EXPRESSION = "profile.jsonata";
export const SAMPLES_DIR = "samples";

const manifestSchema = z.object({
  name: z.string().min(1).max(100),
  kind: z.enum(PROFILE_KINDS as ["lead", "appointment", "outbound"]),
  description: z.string().max(1000).default(""),
});

const sampleFileSchema = z.object({
  name: z.string().min(1).max(200).optional(),
  payload: z.unknown(),
  expect: z.union([
    z.object({ body: z.unknown() }).strict(),
    z.object({ records: z.array(z.unknown()) }).strict(),
    z
      .object({
        error: z
          .object({ field: z.string().optional(), kind: z.enum(["validation", "mapping", "guardrail"]).optional() })
          .strict(),
      })
      .strict(),
  ]),
});

export class ProfileLoadError extends Error {
  override name = "ProfileLoadError";
}

/**
 * Reads `profile.json` (name, kind, description), `profile.jsonata` and `samples/*.json` (in file-name order; a
 * sample's name defaults to its file name). The version id is derived from the name and the expression's digest, so
 * an unchanged file keeps its compiled-expression cache entry and an edited one gets a new id.
 */
export async function loadProfileDir(dir: string): Promise<LoadedProfile> {
  const manifest = manifestSchema.safeParse(await readJson(join(dir, PROFILE_MANIFEST)));
  if (!manifest.success) throw invalid(join(dir, PROFILE_MANIFEST), manifest.error);
  const expression = await readText(join(dir, PROFILE_EXPRESSION));
  const samples: GoldenSample[] = [];
  const sampleDir = join(dir, SAMPLES_DIR);
  const files = (await readdir(sampleDir).catch(() => [])).filter((f) => f.endsWith(".json")).sort();
  for (const file of files) {
    const path = join(sampleDir, file);
    const parsed = sampleFileSchema.safeParse(await readJson(path));
    if (!parsed.success) throw invalid(path, parsed.error);
    const { name = basename(file, ".json"), payload, expect } = parsed.data;
    samples.push({ name, payload, expect: expect as GoldenSample["expect"] });
  }
  const digest = createHash("sha256").update(expression).digest("hex").slice(0, 16);
  return {
    dir,
    versionId: `file:${manifest.data.name}@${digest}`,
    name: manifest.data.name,
    kind: manifest.data.kind,
    description: manifest.data.description,
    expression,
    samples,
  };
}

/** Profile directories at or under `root` (a directory holding a profile.json), sorted; two levels deep at most. */
export async function findProfileDirs(root: string, depth = 2): Promise<string[]> {
  if (await exists(join(root, PROFILE_MANIFEST))) return [root];
  if (depth === 0) return [];
  const entries = await readdir(root, { withFileTypes: true });
  const dirs = entries.filter((e) => e.isDirectory() && !e.name.startsWith(".") && e.name !== "node_modules");
  const nested = await Promise.all(dirs.map((e) => findProfileDirs(join(root, e.name), depth - 1)));
  return nested.flat().sort();
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    throw new ProfileLoadError(`${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function readJson(path: string): Promise<unknown> {
  const text = await readText(path);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ProfileLoadError(`${path}: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}

function invalid(path: string, error: z.ZodError): ProfileLoadError {
  const issue = error.issues[0];
  const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
  return new ProfileLoadError(`${path}: ${where}${issue?.message ?? "invalid"}`);
}
