import { createHash } from "node:crypto";
import { ApiError } from "../../http/errors.js";
import {
  describeOutcome,
  EngineClosedError,
  EngineOverloadedError,
  EngineUnavailableError,
  type ProfileEngine,
} from "../profiles/index.js";

/**
 * A JSONata expression a connection declares beside its profile (the fetch's `ids`, the test marker), evaluated on a
 * payload by the profile engine: contained like any profile (guardrails, evaluator processes), since a connection of
 * the owner's own declares it too. Its value, or why it failed (the caller decides what that means).
 */
export async function evaluateDeclared(
  engine: ProfileEngine,
  expression: string,
  payload: unknown,
): Promise<{ ok: true; value: unknown } | { ok: false; reason: string }> {
  const wrapped = `{"value": (${expression})}`;
  const versionId = `declared:${createHash("sha256").update(expression).digest("hex").slice(0, 24)}`;
  try {
    const outcome = await engine.map({ versionId, kind: "outbound", expression: wrapped, payload });
    if (outcome.ok && "body" in outcome) return { ok: true, value: (outcome.body as { value?: unknown }).value };
    return { ok: false, reason: outcome.ok ? "it produced records" : describeOutcome(outcome) };
  } catch (error) {
    if (
      error instanceof EngineOverloadedError ||
      error instanceof EngineUnavailableError ||
      error instanceof EngineClosedError
    ) {
      throw new ApiError("unavailable", "profile evaluation is busy; retry shortly", {
        headers: { "retry-after": "1" },
        cause: error,
      });
    }
    throw error;
  }
}
