import { ApiError, notFound } from "../../http/errors.js";
import type { GatewayContext } from "../context.js";
import {
  type Bindings,
  EngineClosedError,
  EngineOverloadedError,
  EngineUnavailableError,
  type MappingOutcome,
} from "../profiles/index.js";
import type { VendorKeyRow } from "../storage/vendor-keys/index.js";
import type { JsonValue } from "./bodies/index.js";
import { type HookMapping, hookMapping } from "./hook-records.js";
import type { ResolvedConnection } from "./resolved-connection.js";

/** The connection's own vendor key (it carries the credential, the bound profile and the scope of idempotency). */
export async function vendorKeyOf(ctx: GatewayContext, connection: ResolvedConnection): Promise<VendorKeyRow> {
  const found = ctx.vendorKeys.find(connection.row.vendorKeyId);
  const key = found instanceof Promise ? await found : found;
  if (!key || key.revokedAt !== null) throw notFound();
  return key;
}

/**
 * The connection's profile over a payload (a hook's body, or a record fetched after a notification, mapped with the
 * notification's target bound as `$notification`: docs/connections.md, "Fetch after notify"). A profile that cannot
 * run now is the gateway's 503, not the vendor's fault.
 */
export async function mapPayload(
  ctx: GatewayContext,
  key: VendorKeyRow,
  connection: ResolvedConnection,
  tree: JsonValue,
  options: {
    /** Bound as JSONata variables: a fetched record's `$notification` (D-320). */
    bindings?: Bindings;
    /** Another version than the key's bound one: a held payload's re-map (D-308). */
    versionId?: string | undefined;
    /** The payload's size as received: a proven version maps a small one inline, as at intake (profiles/inline.ts). */
    payloadChars?: number;
  } = {},
): Promise<HookMapping> {
  const kind = connection.row.profileKind;
  const { bindings, payloadChars } = options;
  const versionId = options.versionId ?? (kind === "lead" ? key.leadProfileVersionId : key.appointmentProfileVersionId);
  if (versionId === null)
    return { held: true, reason: `no ${kind} profile is bound to the connection`, profileVersionId: "" };
  const found = ctx.profiles.expressionOf(key.companyId, versionId);
  const version = found instanceof Promise ? await found : found;
  if (!version) return { held: true, reason: "the bound profile version is gone", profileVersionId: versionId };
  let outcome: MappingOutcome;
  try {
    outcome = await ctx.engine.map({
      versionId,
      kind,
      expression: version.expression,
      payload: tree,
      ...(bindings ? { bindings } : {}),
      ...(payloadChars !== undefined ? { payloadChars } : {}),
    });
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
  return hookMapping(kind, versionId, outcome);
}
