import { type Finder, MINUTE_MS } from "../scan.js";

/**
 * The dead letter growing (D-341): `count` submissions or more failed for good within the window. Kept open while
 * any more enter it within the window; its count is every one that entered since the window that opened it.
 */
export const findDeadLetterGrowth: Finder = async (scan) => {
  const t = scan.thresholds.dead_letter_growth;
  if (!t.enabled) return [];
  const windowMs = t.windowMinutes * MINUTE_MS;
  const open = scan.live("dead_letter_growth")[0];
  const { ctx, companyId } = scan;
  const inWindow = await ctx.submissions.deadLetterSince(companyId, new Date(scan.nowMs - windowMs).toISOString());
  if (open ? inWindow.entered === 0 : inWindow.entered < t.count) return [];
  const count = open
    ? (await ctx.submissions.deadLetterSince(companyId, new Date(Date.parse(open.openedAt) - windowMs).toISOString()))
        .entered
    : inWindow.entered;
  return [
    {
      condition: "dead_letter_growth",
      resourceType: "company",
      resourceId: companyId,
      count,
      message:
        `${inWindow.entered} submissions entered the dead letter in the last ${t.windowMinutes} minutes ` +
        `(${count} since this began; ${inWindow.total} there now). Look at why they failed, fix it, then redrive them.`,
      link: "/console/dead-letter",
    },
  ];
};
