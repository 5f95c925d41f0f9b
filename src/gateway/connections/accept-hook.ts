import type { Span } from "@opentelemetry/api";
import { capturePayload, isCapturing } from "../captures/capture-payload.js";
import type { GatewayContext } from "../context.js";
import { childSpan, inSpanOf } from "../tracing/index.js";
import type { JsonValue } from "./bodies/index.js";
import { fetchTargets } from "./fetch-targets.js";
import { mapPayload, vendorKeyOf } from "./hook-mapping.js";
import { type Base, fetchRow, mappedRows, type Planned } from "./hook-rows.js";
import type { ResolvedConnection } from "./resolved-connection.js";
import { storeRows } from "./store-hook-rows.js";
import { isTestPayload } from "./test-marker.js";

/**
 * Stores what a vendor posted to its hook URL, durably, before the vendor is answered (docs/connections.md, "Store
 * first, map after"): the records its profile makes of it (a lead; a booking's lead and its appointment, chained), a
 * notified record to fetch (fetcher.ts then reads it from the vendor's API), or the payload held for the owner with
 * the reason when the profile cannot map it or it lacks what the platform requires. A vendor's retry makes no second
 * submission (the records' own ids, D-305); a change the Inbound API cannot express (a reschedule, a cancellation, a
 * booking changed under the same id) is stored as `noted`, never sent as a second appointment. A connection in
 * capture mode (D-315) stores the payload as its one JSON tree instead, and nothing more: no mapping, no fetch.
 */
export async function acceptHookPayload(
  ctx: GatewayContext,
  connection: ResolvedConnection,
  /** `text`: the tree as JSON, when the caller has it (a JSON body's own text, D-365), stored as the payload. */
  payload: { raw: Uint8Array; body: JsonValue; text?: string },
  /** The hook request's span (tracing on): mapping and commit are its children, the rows carry its trace. */
  span?: Span,
): Promise<void> {
  const key = await vendorKeyOf(ctx, connection);
  const tree = payload.body;
  const json = payload.text ?? JSON.stringify(tree);
  if (isCapturing(key)) {
    const captured = {
      kind: connection.row.profileKind,
      connectionId: connection.row.id,
      bytes: payload.raw.byteLength,
    };
    await capturePayload(ctx, key, { ...captured, payload: json });
    return;
  }
  const test = await isTestPayload(ctx, connection, tree);
  const now = ctx.now();
  const base: Base = {
    key,
    connectionId: connection.row.id,
    rawPayload: json,
    test,
    now,
    traceParent: span ? ctx.tracing.traceparent(span) : null,
  };
  const planned = await inSpanOf(childSpan(ctx.tracing, "map payload", span), () =>
    planHookRows(ctx, connection, base, tree),
  );
  await inSpanOf(childSpan(ctx.tracing, "commit submission", span), () => storeRows(ctx, key, planned));
  // The notified records are due now: the fetcher need not wait for its next look.
  if (planned.some((entry) => entry.row.status === "fetching")) ctx.running.fetcher?.notify(now.getTime());
}

/**
 * The rows one payload becomes, not written yet: a row to fetch per notified record, or the records of the profile's
 * mapping (by default the version bound to the connection's key; a held payload's re-map may name another, D-308), or
 * the payload held with the reason.
 */
export async function planHookRows(
  ctx: GatewayContext,
  connection: ResolvedConnection,
  base: Base,
  tree: JsonValue,
  versionId?: string,
): Promise<Planned[]> {
  const fetch = connection.declarations.fetch;
  const kind = connection.row.profileKind;
  if (!fetch)
    return mappedRows(
      ctx,
      base,
      kind,
      await mapPayload(ctx, base.key, connection, tree, { versionId, payloadChars: base.rawPayload.length }),
    );
  const targets = await fetchTargets(ctx.engine, fetch, tree);
  return Array.isArray(targets)
    ? targets.map((target) => fetchRow(base, connection, target))
    : mappedRows(ctx, base, kind, { held: true, reason: targets.held, profileVersionId: "" });
}
