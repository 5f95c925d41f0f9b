/**
 * Presets: a named vendor's connection as data (`presets/<id>/` at the repository root), its schema and its loader
 * (hooks contract, "Preset data"; docs/decisions.md D-304).
 */
export { PresetLoadError } from "./errors.js";
export { type FetchAuth, type FetchDeclaration, fetchSchema, urlTemplateIssue } from "./fetch-schema.js";
export { type LoadedPreset, loadPresetDir, loadPresets } from "./load.js";
export { PRESET_BODY_TYPES, type Preset, presetSchema } from "./preset-schema.js";
export { type PresetSample, presetSampleSchema } from "./sample-schema.js";
