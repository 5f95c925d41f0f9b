/** The shapes of the profile engine's public face. Words as in DESIGN.md: a profile maps a vendor's native payload. */

export type ProfileKind = "lead" | "appointment" | "outbound";

/**
 * JSONata variables bound beside the payload, by name without the `$` (`{notification: …}` is `$notification`): plain
 * JSON data, like the payload (docs/profiles.md, "Bindings").
 */
export type Bindings = Readonly<Record<string, unknown>>;

export const PROFILE_KINDS: readonly ProfileKind[] = ["lead", "appointment", "outbound"];

/** A syntax (or unsupported-regex) error; `line`/`column` are 1-based and point at the offending token's end. */
export interface CompileError {
  message: string;
  position?: number;
  line?: number;
  column?: number;
}

export type CompileResult = { ok: true } | { ok: false; error: CompileError };

export interface EvaluationOptions {
  /** JSONata's cooperative time limit for this evaluation (default: the engine's, 50 ms). */
  timeoutMs?: number;
  /**
   * A golden sample: judged like any evaluation, but it does not count towards the version's probation (a profile
   * can pass its samples and run away on real payloads).
   */
  sample?: boolean;
  /**
   * The owner's tooling (a preview, a replay, golden samples run through the owner API): evaluated on the tooling lane,
   * never inline and never on the evaluators intake uses (engine.ts).
   */
  tooling?: boolean;
}

/**
 * Which guardrail stopped an evaluation: JSONata's own limits (`time`, `stack`, `sequence`), a regular expression the
 * linear-time engine refuses (`regex`), the evaluator's heap or string size (`memory`), an oversized result (`output`),
 * the hard deadline that terminates an evaluator that stopped cooperating (`deadline`), or an evaluator that died (`crash`).
 */
export type GuardrailLimit = "time" | "stack" | "sequence" | "regex" | "memory" | "output" | "deadline" | "crash";

/** The kinds of record a profile may produce (docs/profiles.md, "Records"): a lead (§2.7) or an appointment (§2.8). */
export type RecordKind = "lead" | "appointment";

export const RECORD_KINDS: readonly RecordKind[] = ["lead", "appointment"];

/** What a record asks of the gateway; absent means `create` (the only one the Inbound API can express). */
export type RecordAction = "create" | "reschedule" | "cancel";

export const RECORD_ACTIONS: readonly RecordAction[] = ["create", "reschedule", "cancel"];

/**
 * One record of a profile's output, its body validated by its kind's canonical schema (docs/decisions.md, D-300). A
 * chained appointment's body has no `leadId`: the gateway fills in the lead record's submission before it (D-301).
 */
export interface MappedRecord {
  kind: RecordKind;
  /** The vendor's own id of the record: a vendor's retry of it never makes a second submission. */
  id?: string;
  body: unknown;
  /** A vendor's test record: kept, never forwarded to a live platform. */
  test?: boolean;
  action?: RecordAction;
  /** The vendor's other details the profile put in the body's `extras` (D-320): kept, never sent upstream. */
  extras?: Record<string, unknown>;
}

/**
 * `body`: the profile produced one canonical body of its own kind, as profiles always could. `records`: it produced a
 * record `{kind, id?, body, test?, action?}` or a list of them, in order (D-300).
 */
export type MappingOutcome =
  | {
      ok: true;
      body: unknown;
      /** The vendor's other details the profile put in `extras` (D-320): kept, never sent upstream. */
      extras?: Record<string, unknown>;
      /** Keys the profile produced that the canonical body does not have, dropped (D-321). */
      dropped?: string[];
      elapsedMs: number;
    }
  | {
      ok: true;
      records: MappedRecord[];
      /** Keys the records' bodies had that their canonical bodies do not (`records[1].body.service`), dropped (D-321). */
      dropped?: string[];
      elapsedMs: number;
    }
  | {
      ok: false;
      kind: "validation";
      field: string;
      message: string;
      sourcePath?: string;
      output: unknown;
      elapsedMs: number;
    }
  | { ok: false; kind: "mapping"; message: string; position?: number; elapsedMs: number }
  | { ok: false; kind: "guardrail"; limit: GuardrailLimit; message: string; elapsedMs: number };

/** An outcome before its time is known (distributes over the union, which a plain Omit would not). */
export type Untimed<T> = T extends unknown ? Omit<T, "elapsedMs"> : never;

export type MappingErrorKind = "validation" | "mapping" | "guardrail";

/**
 * What a golden sample must produce: exactly this canonical body, exactly these records (D-303), or an error
 * (optionally of a kind, on a field).
 */
export type GoldenExpectation =
  | { body: unknown }
  | { records: unknown[] }
  | { error: { field?: string; kind?: MappingErrorKind } };

export interface GoldenSample {
  name: string;
  payload: unknown;
  /**
   * Variables bound beside the payload while the sample is evaluated (`{notification: …}` is `$notification`), as the
   * gateway binds them on the live path: a fetched record's sample binds its notification (docs/profiles.md, "Bindings").
   */
  bindings?: Bindings;
  expect: GoldenExpectation;
}

export interface ProfileSource {
  versionId: string;
  kind: ProfileKind;
  expression: string;
}

export interface LoadedProfile extends ProfileSource {
  /** The directory it was read from. */
  dir: string;
  name: string;
  description: string;
  samples: GoldenSample[];
}
