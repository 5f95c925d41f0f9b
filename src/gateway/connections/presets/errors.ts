/** A preset that cannot be loaded; the message names the file (and the field, or the line and column). */
export class PresetLoadError extends Error {
  override name = "PresetLoadError";
  readonly code = "preset_invalid";

  constructor(
    /** The file at fault (or the directory, when a file is missing). */
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
  }
}
