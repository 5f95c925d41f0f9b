import { type LoadedPreset, loadPresets } from "./presets/index.js";

/**
 * The presets this gateway offers (presets/<id>/ at the repository root, or PRESETS_DIR), loaded and checked once at
 * start: a broken preset stops the start, never a vendor's request.
 */
export class PresetCatalogue {
  readonly #byId: ReadonlyMap<string, LoadedPreset>;

  constructor(presets: readonly LoadedPreset[]) {
    this.#byId = new Map(presets.map((p) => [p.id, p]));
  }

  static async load(dir: string): Promise<PresetCatalogue> {
    return new PresetCatalogue(await loadPresets(dir));
  }

  list(): LoadedPreset[] {
    return [...this.#byId.values()];
  }

  get(id: string): LoadedPreset | undefined {
    return this.#byId.get(id);
  }
}
