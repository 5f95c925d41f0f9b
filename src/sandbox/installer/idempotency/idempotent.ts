import type { Context, MiddlewareHandler } from "hono";
import { canonicalDigest } from "../../../canonical-json.js";
import { conflict } from "../../../http/errors.js";
import { readJson } from "../../../http/json-body.js";
import type { SandboxTx } from "../../db/client.js";
import { callerOf, type SandboxEnv } from "../../env.js";
import { dropExpiredRecords, findRecord, saveRecord } from "../store/idempotency.js";
import { IDEMPOTENCY_RETENTION_MS, idempotencyKeyOf } from "./idempotency-key.js";
import type { InFlightKeys } from "./in-flight.js";

export type { IdempotentRequest } from "./idempotent-request.js";

export const JSON_TYPE = { "content-type": "application/json" } as const;

/** §7: a 5xx or 429 is retried with the same key, so it must run again; a 400 was never run (Stripe's rule too). */
function storable(status: number): boolean {
  return status !== 400 && status !== 429 && status < 500;
}

/**
 * Idempotency-Key on Installer API writes (§4, §4.1 rule 3, §7, §8), after authentication and limits — a replay
 * counts against the limits like any request. The key is claimed before the body is read, so a second request with
 * it while the first is still being handled is a 409. Then the owner's record under the key decides: the same
 * operation and body replay the stored answer byte for byte (no new version, no event); another body or operation is
 * a 409. A first use runs the route and stores its answer — 2xx in the write's transaction, 404/409/422 after it;
 * 400, 429 and 5xx are never stored.
 */
export function idempotent(inFlight: InFlightKeys): MiddlewareHandler<SandboxEnv> {
  return async (c, next) => {
    const key = idempotencyKeyOf(c.req.header("idempotency-key"));
    const ownerId = callerOf(c).companyId;
    if (!inFlight.claim(ownerId, key)) {
      throw conflict("a request with this Idempotency-Key is still in flight; retry after it is answered", {
        field: "Idempotency-Key",
        reason: "in_flight",
      });
    }
    try {
      const { text, raw, body } = await readJson(c);
      // Route validators read the body again through Hono's cache rather than the consumed stream.
      (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text);
      c.set("rawBody", raw);
      c.set("body", body);

      const { db, clock } = c.get("ctx");
      const operation = `${c.req.method} ${c.req.path}`;
      const requestDigest = canonicalDigest(body);
      const stored = findRecord(db, ownerId, key, clock.now());
      if (stored) {
        if (stored.operation !== operation || stored.requestDigest !== requestDigest) {
          throw conflict("Idempotency-Key was already used with a different body or operation", {
            field: "Idempotency-Key",
            reason: "reused",
          });
        }
        return replay(c, stored.responseStatus, stored.responseBody);
      }

      let committed = false;
      const save = (tx: SandboxTx | typeof db, status: number, responseBody: string) => {
        const now = clock.now();
        dropExpiredRecords(tx, now);
        saveRecord(tx, {
          ownerId,
          idempotencyKey: key,
          operation,
          requestDigest,
          responseStatus: status,
          responseBody,
          createdAt: new Date(now).toISOString(),
          expiresAt: now + IDEMPOTENCY_RETENTION_MS,
        });
        committed = true;
      };
      c.set("idempotency", { commit: save });
      await next();
      if (committed || !storable(c.res.status)) return;
      const answer = await c.res.text();
      save(db, c.res.status, answer);
      c.res = new Response(answer, c.res);
    } finally {
      inFlight.release(ownerId, key);
    }
  };
}

function replay(c: Context<SandboxEnv>, status: number, body: string): Response {
  c.header("idempotent-replayed", "true");
  return c.body(body, status as 200, JSON_TYPE);
}
