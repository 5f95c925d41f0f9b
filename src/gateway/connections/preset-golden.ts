import type { StoredSample } from "../storage/profiles/index.js";
import { parseHookBody } from "./bodies/index.js";
import type { LoadedPreset, PresetSample } from "./presets/index.js";
import { readHeader } from "./proofs/request.js";

/**
 * A preset's documented samples as golden samples of the profile a connection is given (docs/profiles.md): the payload
 * the profile maps — the parsed body, or for a preset that fetches, each record the vendor's API returns — and the
 * records it must produce, or an error where the documented example is held for lacking what the platform requires.
 * Handshake samples test no mapping and give none.
 */
export async function presetGoldenSamples(preset: LoadedPreset): Promise<StoredSample[]> {
  const golden: StoredSample[] = [];
  for (const sample of preset.samples) {
    if ("answer" in sample.expect) continue;
    const expect: StoredSample["expect"] =
      "records" in sample.expect ? { records: sample.expect.records } : { error: {} };
    for (const [index, payload] of (await payloadsOf(preset, sample)).entries()) {
      golden.push({ name: sampleName(sample.name, index), payload, expect });
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

async function payloadsOf(preset: LoadedPreset, sample: PresetSample): Promise<unknown[]> {
  if (preset.preset.fetch) return Object.values(sample.fetched ?? {});
  const contentType = readHeader(sample.request.headers, "content-type");
  return [await parseHookBody(Buffer.from(sample.request.body, "utf8"), contentType)];
}
