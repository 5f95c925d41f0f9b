import type { MessagePort } from "node:worker_threads";
import type { MappingOutcome, ProfileKind } from "./types.js";

/**
 * Messages between the pool and its workers: plain, structured-clone-friendly data. The payload crosses as a clone,
 * so the worker never holds a host object; the outcome comes back as plain JSON data (the worker has already dropped
 * anything JSON cannot carry), so no function or prototype crosses either way.
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

export interface WorkerInit {
  port: MessagePort;
  compiledCacheSize: number;
}
