import { ApiError } from "../../http/errors.js";
import type { GatewayContext } from "../context.js";
import { Lru } from "../profiles/lru.js";
import type { ConnectionRow } from "../storage/connections/index.js";
import { openSecrets } from "./connection-secrets.js";
import { type HookDeclarations, presetDeclarations, settingsDeclarations } from "./declarations.js";

/** A connection ready to answer its vendor: its declarations and its opened secrets. */
export interface ResolvedConnection {
  row: ConnectionRow;
  declarations: HookDeclarations;
  secrets: ReadonlyMap<string, string>;
}

/**
 * Connections' declarations and opened secrets, kept per connection for as long as its row is the one the store
 * returns (a rotation, a revocation or new secrets make another row): a hook request then costs no decryption.
 * Bounded, the least recently used out first.
 */
export class ConnectionResolver {
  readonly #entries = new Lru<string, ResolvedConnection>(10_000);

  constructor(private readonly ctx: GatewayContext) {}

  resolve(row: ConnectionRow): ResolvedConnection {
    const cached = this.#entries.get(row.id);
    if (cached && cached.row === row) return cached;
    const resolved: ResolvedConnection = {
      row,
      declarations: this.#declarations(row),
      secrets: openSecrets(this.ctx.sealer, row.id, row.sealedSecrets),
    };
    this.#entries.set(row.id, resolved);
    return resolved;
  }

  #declarations(row: ConnectionRow): HookDeclarations {
    if (row.preset === null) return settingsDeclarations(row.settings);
    const preset = this.ctx.presets.get(row.preset);
    // A preset this gateway no longer ships: the connection cannot verify its vendor; retry once it is back.
    if (!preset) throw new ApiError("unavailable", `the connection's preset ${row.preset} is not available`);
    return presetDeclarations(preset);
  }
}
