import type { GatewayContext } from "../context.js";

/**
 * Removes the golden samples that mention a person from a company's profile versions (an erasure): an owner often
 * makes a sample of a real payload (the console does it in one click), which is then a copy of that person's data.
 * The version is otherwise untouched — its expression, its status, the keys bound to it; its other samples still
 * guard it. Returns how many samples were removed.
 */
export async function eraseFromSamples(
  ctx: GatewayContext,
  companyId: string,
  mentions: (text: string) => boolean,
): Promise<number> {
  return await ctx.profiles.eraseSamples(companyId, mentions);
}
