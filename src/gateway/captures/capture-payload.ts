import { newId } from "../../ids.js";
import type { GatewayContext } from "../context.js";
import type { VendorKeyRow } from "../storage/vendor-keys/index.js";

/**
 * How many captured payloads a key (its connection) keeps (D-316): enough for a vendor's few test leads and the shapes
 * they vary in, few enough that a vendor left in capture mode costs the database a bounded amount (each payload is
 * within the intake's 1 MB body limit, so at most 20 MB per key). The oldest goes as a new one arrives.
 */
export const CAPTURE_KEEP = 20;

/** A key (or its hook connection) in capture mode (D-315): its payloads are captured, never mapped or forwarded. */
export function isCapturing(key: Pick<VendorKeyRow, "captureSince">): boolean {
  return key.captureSince !== null;
}

/**
 * Stores what a vendor sent in capture mode, committed before the vendor is answered (as an accept is). The answer
 * names the capture as a submission would be named (D-315), so the vendor's client sees a normal accept.
 */
export async function capturePayload(
  ctx: GatewayContext,
  key: VendorKeyRow,
  input: { kind: "lead" | "appointment"; connectionId: string | null; payload: string; bytes: number },
): Promise<string> {
  const now = ctx.now();
  const id = newId("cap", now.getTime());
  await ctx.captures.capture(
    {
      id,
      companyId: key.companyId,
      vendorKeyId: key.id,
      connectionId: input.connectionId,
      kind: input.kind,
      payload: input.payload,
      bytes: input.bytes,
      createdAt: now.toISOString(),
    },
    CAPTURE_KEEP,
  );
  ctx.log.info({ captureId: id, vendorKeyId: key.id, connectionId: input.connectionId }, "captured");
  return id;
}
