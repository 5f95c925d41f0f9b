import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import type { z } from "zod";
import { compileProfile } from "../../profiles/index.js";
import { PresetLoadError } from "./errors.js";
import { type Preset, presetSchema } from "./preset-schema.js";
import { type PresetSample, presetSampleSchema } from "./sample-schema.js";

export const PRESET_MANIFEST = "preset.json";
export const PRESET_PROFILE = "profile.jsonata";
export const PRESET_SAMPLES = "samples";

export interface LoadedPreset {
  id: string;
  /** The directory it was read from. */
  dir: string;
  preset: Preset;
  /** The profile (profile.jsonata), compiled once here: a preset whose profile does not compile does not load. */
  expression: string;
  /** Derived from the id and the expression's digest, as profiles/load.ts derives a file profile's. */
  versionId: string;
  /** In file-name order. */
  samples: (PresetSample & { file: string })[];
}

/**
 * Every preset under `dir` (the repository's `presets/`): each directory is one, `<id>/` holding preset.json,
 * profile.jsonata and samples/*.json. All or nothing: the first problem throws a PresetLoadError naming its file, so a
 * broken preset is found when the gateway starts or a test runs, never when a vendor posts. Sorted by id.
 */
export async function loadPresets(dir: string): Promise<LoadedPreset[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: unknown) => {
    throw new PresetLoadError(dir, reason(error));
  });
  const ids = entries.filter((e) => e.isDirectory() && !e.name.startsWith(".")).map((e) => e.name);
  const presets: LoadedPreset[] = [];
  for (const id of ids.sort()) presets.push(await loadPresetDir(join(dir, id)));
  return presets;
}

/** One preset directory; its id is the directory's name, which preset.json's `id` must repeat. */
export async function loadPresetDir(dir: string): Promise<LoadedPreset> {
  const manifestPath = join(dir, PRESET_MANIFEST);
  const preset = parsed(manifestPath, presetSchema, await readJson(manifestPath));
  if (preset.id !== basename(dir)) {
    throw new PresetLoadError(manifestPath, `id: ${preset.id} is not the directory's name (${basename(dir)})`);
  }
  const profilePath = join(dir, PRESET_PROFILE);
  const expression = await readText(profilePath);
  const compiled = compileProfile(expression);
  if (!compiled.ok) {
    const { message, line, column } = compiled.error;
    const file = line === undefined ? profilePath : `${profilePath}:${line}:${column}`;
    throw new PresetLoadError(file, `does not compile: ${message}`);
  }
  const samples: LoadedPreset["samples"] = [];
  const samplesDir = join(dir, PRESET_SAMPLES);
  const files = (await readdir(samplesDir).catch(() => [])).filter((f) => f.endsWith(".json")).sort();
  for (const file of files) {
    const path = join(samplesDir, file);
    const sample = parsed(path, presetSampleSchema, await readJson(path));
    checkSampleAgainst(preset, sample, path);
    samples.push({ ...sample, file });
  }
  const digest = createHash("sha256").update(expression).digest("hex").slice(0, 16);
  return { id: preset.id, dir, preset, expression, versionId: `preset:${preset.id}@${digest}`, samples };
}

/** What a sample may refer to is what its preset declares: its kinds, its secrets, a fetch. */
function checkSampleAgainst(preset: Preset, sample: PresetSample, path: string): void {
  const kinds: readonly string[] = preset.kinds;
  if ("records" in sample.expect) {
    for (const [index, record] of sample.expect.records.entries()) {
      if (!kinds.includes(record.kind)) {
        throw new PresetLoadError(path, `expect.records.${index}.kind: ${record.kind} is not among the preset's kinds`);
      }
    }
  }
  const declared = new Set(preset.secrets.map((s) => s.name));
  for (const name of Object.keys(sample.secrets ?? {})) {
    if (!declared.has(name)) throw new PresetLoadError(path, `secrets.${name}: the preset declares no such secret`);
  }
  if (sample.fetched !== undefined && preset.fetch === undefined) {
    throw new PresetLoadError(path, "fetched: the preset fetches nothing");
  }
}

function parsed<T extends z.ZodType>(path: string, schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
  throw new PresetLoadError(path, `${where}${issue?.message ?? "invalid"}`);
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    throw new PresetLoadError(path, reason(error));
  }
}

async function readJson(path: string): Promise<unknown> {
  const text = await readText(path);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new PresetLoadError(path, `not valid JSON (${reason(error)})`);
  }
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
