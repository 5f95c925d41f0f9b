import { join } from "node:path";
import type { ProfileEngine } from "../profiles/index.js";
import type { StoredSample } from "../storage/profiles/index.js";
import { parseHookBody } from "./bodies/index.js";
import { fetchTargets } from "./fetch-targets.js";
import { type LoadedPreset, PRESET_SAMPLES, PresetLoadError, type PresetSample } from "./presets/index.js";
import { readHeader } from "./proofs/request.js";

/**
 * A preset's documented samples as golden samples of the profile a connection is given (docs/profiles.md): the payload
 * the profile maps and the records it must produce, or an error where the documented example is held for lacking what
 * the platform requires. Handshake samples test no mapping and give none. For a preset that fetches, the payloads are
 * the records the vendor's API returns for the targets the notification names (`fetched`, keyed by each target's
 * `id`), each with its target bound as `$notification`, exactly as the fetcher maps them (docs/connections.md, "Fetch
 * after notify").
 */
export async function presetGoldenSamples(engine: ProfileEngine, preset: LoadedPreset): Promise<StoredSample[]> {
  const golden: StoredSample[] = [];
  for (const sample of preset.samples) {
    if ("answer" in sample.expect) continue;
    const expect: StoredSample["expect"] =
      "records" in sample.expect ? { records: sample.expect.records } : { error: {} };
    for (const [index, mapped] of (await payloadsOf(engine, preset, sample)).entries()) {
      golden.push({ name: sampleName(sample.name, index), ...mapped, expect });
    }
  }
  return golden;
}

/** A golden sample's name holds 200 characters (the owner API's), a preset sample's a sentence: the first of it. */
const MAX_NAME = 200;

function sampleName(name: string, index: number): string {
  const suffix = index === 0 ? "" : ` (${index + 1})`;
  const room = MAX_NAME - suffix.length;
  return `${name.length > room ? `${name.slice(0, room - 1)}…` : name}${suffix}`;
}

async function payloadsOf(
  engine: ProfileEngine,
  preset: LoadedPreset,
  sample: PresetSample & { file: string },
): Promise<Pick<StoredSample, "payload" | "bindings">[]> {
  const contentType = readHeader(sample.request.headers, "content-type");
  const tree = await parseHookBody(Buffer.from(sample.request.body, "utf8"), contentType);
  const fetch = preset.preset.fetch;
  if (!fetch) return [{ payload: tree }];
  const path = join(preset.dir, PRESET_SAMPLES, sample.file);
  const targets = await fetchTargets(engine, fetch, tree);
  if (!Array.isArray(targets)) throw new PresetLoadError(path, `fetch.ids: ${targets.held}`);
  return targets.map((target) => {
    const id = target.id;
    const record = id === undefined ? undefined : sample.fetched?.[id];
    if (id === undefined || record === undefined) {
      throw new PresetLoadError(
        path,
        `fetched: no documented response for the notified record ${JSON.stringify(target)}`,
      );
    }
    return { payload: record, bindings: { notification: target } };
  });
}
