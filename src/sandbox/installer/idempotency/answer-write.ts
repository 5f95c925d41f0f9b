import type { Context } from "hono";
import { API_VERSION } from "../../../contract/api-version.js";
import type { CallerCtx } from "../../context.js";
import type { SandboxTx } from "../../db/client.js";
import { callerCtx, type SandboxEnv } from "../../env.js";
import { JSON_TYPE } from "./idempotent.js";

/** What an Installer API write runs with: the caller's context and the transaction its change commits in. */
export interface WriteCtx extends CallerCtx {
  tx: SandboxTx;
}

/**
 * Runs a write behind `idempotent()` and answers `{apiVersion, resource}` (§4.1): the change, its feed item, its
 * event and the stored answer under the Idempotency-Key commit in one transaction, so a crash can never leave a change
 * whose key would run it again. A domain error rolls everything back and is answered (and stored) by the middleware.
 */
export function answerWrite(c: Context<SandboxEnv>, status: 200 | 201, write: (ctx: WriteCtx) => unknown): Response {
  const ctx = callerCtx(c);
  const request = c.get("idempotency");
  if (!request) throw new Error("an Installer API write must run behind idempotent()");
  const body = ctx.db.transaction((tx) => {
    const resource = write({ ...ctx, tx });
    const answer = JSON.stringify({ apiVersion: API_VERSION, resource });
    request.commit(tx, status, answer);
    return answer;
  });
  return c.body(body, status, JSON_TYPE);
}
