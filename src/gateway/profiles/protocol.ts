import type { MappingOutcome, ProfileKind } from "./types.js";

/**
 * Messages between the pool and its evaluator processes, over the IPC channel as JSON: the payload arrives as a copy,
 * so an evaluator never holds a host object, and the outcome comes back as plain data (the evaluator has already
 * dropped anything JSON cannot carry), so no function or prototype crosses either way.
 */
export interface EvaluateRequest {
  id: number;
  versionId: string;
  kind: ProfileKind;
  expression: string;
  payload: unknown;
  timeoutMs: number;
}

export type EvaluateReply = { id: number } & MappingOutcome;

export type WorkerMessage = { type: "ready" } | ({ type: "reply" } & EvaluateReply);
