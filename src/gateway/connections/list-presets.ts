import type { GatewayContext } from "../context.js";

/**
 * The presets an owner may connect (the catalogue loaded at start): what each vendor is, the records it brings, the
 * secrets to paste with what each is and where to find it, and how the hook URL is given to the vendor. A preset's
 * proof, profile and samples stay the gateway's (docs/connections.md, "Connecting a vendor").
 */
export function listConnectionPresets({ ctx }: { ctx: GatewayContext }) {
  return ctx.presets.list().map(({ preset }) => ({
    id: preset.id,
    vendor: preset.vendor,
    kinds: [...preset.kinds],
    secrets: preset.secrets.map(({ name, description, where }) => ({ name, description, where })),
    fetch: preset.fetch !== undefined,
    bodyType: preset.bodyType,
    register: preset.register ? { how: preset.register.how, docs: preset.register.docs } : null,
    docs: [...preset.docs],
  }));
}
