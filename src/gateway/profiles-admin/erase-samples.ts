import { eq } from "drizzle-orm";
import { profileVersions } from "../../db/schema/index.js";
import type { GatewayContext } from "../context.js";

/**
 * Removes the golden samples that mention a person from a company's profile versions (an erasure): an owner often
 * makes a sample of a real payload (the console does it in one click), which is then a copy of that person's data.
 * The version is otherwise untouched — its expression, its status, the keys bound to it; its other samples still
 * guard it. Returns how many samples were removed.
 */
export function eraseFromSamples(ctx: GatewayContext, companyId: string, mentions: (text: string) => boolean): number {
  let removed = 0;
  ctx.db.transaction((tx) => {
    const versions = tx
      .select({ id: profileVersions.id, samples: profileVersions.samples })
      .from(profileVersions)
      .where(eq(profileVersions.companyId, companyId))
      .all();
    for (const version of versions) {
      const kept = version.samples.filter((sample) => !mentions(JSON.stringify(sample)));
      if (kept.length === version.samples.length) continue;
      removed += version.samples.length - kept.length;
      tx.update(profileVersions).set({ samples: kept }).where(eq(profileVersions.id, version.id)).run();
    }
  });
  return removed;
}
