/** What a suggestion is asked for: the profile's kind and a few of the vendor's payloads (docs/profiles.md). */
export type SuggestKind = "lead" | "appointment";

export interface SuggestInput {
  kind: SuggestKind;
  payloads: readonly unknown[];
}

/**
 * How sure the suggester is of one field (docs/decisions.md, D-311): `certain` when the field's name and the shape of
 * its value agree in every payload, `likely` when one of the two is strong, `guess` otherwise.
 */
export type Confidence = "certain" | "likely" | "guess";

export interface FieldSuggestion {
  /** The canonical field: `fullName` for a lead profile; `lead.fullName`, `appointment.startsAt` for a booking. */
  field: string;
  /** The payload paths it is read from, as the expression reads them (several joined by ", "). */
  sourcePath: string;
  confidence: Confidence;
  /** One or two short sentences an owner can check against the payloads. */
  reason: string;
}

export interface Suggestion {
  /** A JSONata profile expression that compiles (compileProfile) and uses the shipped helpers. */
  expression: string;
  fields: FieldSuggestion[];
  /** Paths of the payloads the expression does not read (the first MAX_UNMAPPED of them). */
  unmapped: string[];
  /** Canonical fields the payloads do not carry: left out of the expression, never filled with a look-alike. */
  missing: string[];
}

/** Which optional helpers the profile engine of this build has: `$parseJson` is newer than the others. */
export interface SuggestOptions {
  parseJson?: boolean;
}
