import { workerData } from "node:worker_threads";
import { Evaluator } from "./evaluator.js";
import type { EvaluateRequest, WorkerInit, WorkerMessage } from "./protocol.js";

/**
 * A pool worker: evaluates one request at a time (JSONata's time limit is wall-clock, so interleaving would charge one
 * tenant for another's time) and answers on the port the pool gave it, which the pool can drain synchronously when a
 * deadline fires.
 */
const { port, compiledCacheSize } = workerData as WorkerInit;
const evaluator = new Evaluator(compiledCacheSize);
let chain: Promise<void> = Promise.resolve();

port.on("message", (request: EvaluateRequest) => {
  chain = chain.then(async () => {
    const reply = await evaluator.evaluate(request);
    port.postMessage({ type: "reply", ...reply } satisfies WorkerMessage);
  });
});

/**
 * First calls are slow (ICU time-zone data loads on first use, ~15 ms; JSONata and zod warm up): pay for them before
 * reporting ready, so a tenant's first evaluation is not charged for them against its time limit.
 */
const WARM_UP = `{
  "fullName": $joinName("Ada", "Lovelace"), "email": $normalizeEmail(" Ada@Example.com "),
  "phone": $phoneE164("(512) 555-0100", "US"), "address": $joinAddress("1 Main St", "Austin", "TX", "78701"),
  "smsConsent": $toBool($default(x, "yes")), "at": $localToUtc("2026-12-01 09:30", "America/Chicago")
}`;
await evaluator.evaluate({
  id: 0,
  versionId: "warm-up",
  kind: "lead",
  expression: WARM_UP,
  payload: {},
  timeoutMs: 5_000,
});

port.postMessage({ type: "ready" } satisfies WorkerMessage);
