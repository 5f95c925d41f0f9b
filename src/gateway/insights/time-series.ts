import type { GatewayContext } from "../context.js";

export interface SeriesBucket {
  /** Start of the bucket (ISO). */
  at: string;
  accepted: number;
  forwarded: number;
  failed: number;
  /** Accept-to-forwarded time of the submissions forwarded in this bucket, in ms; null when none were. */
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
}

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? null;
}

/**
 * The overview's pictures: per time bucket, submissions accepted (by accept time), forwarded (by forward time) and
 * failed (by when they failed), and the forward latency (accept to forwarded) of those forwarded. Reads the
 * submissions accepted in the window, so a submission accepted before it and settled inside is not counted.
 */
export async function submissionTimeSeries({
  ctx,
  companyId,
  hours,
  bucketMinutes,
}: {
  ctx: GatewayContext;
  companyId: string;
  hours: number;
  bucketMinutes: number;
}) {
  const bucketMs = bucketMinutes * 60_000;
  const end = Math.ceil(ctx.now().getTime() / bucketMs) * bucketMs;
  const start = end - Math.ceil((hours * 3_600_000) / bucketMs) * bucketMs;
  const rows = await ctx.submissions.timelineSince(companyId, start);
  const count = (end - start) / bucketMs;
  const buckets = Array.from({ length: count }, (_, i) => ({
    at: new Date(start + i * bucketMs).toISOString(),
    accepted: 0,
    forwarded: 0,
    failed: 0,
    latencies: [] as number[],
  }));
  const bucketOf = (iso: string | null) => {
    if (!iso) return undefined;
    const i = Math.floor((Date.parse(iso) - start) / bucketMs);
    return buckets[i];
  };
  for (const row of rows) {
    const accepted = bucketOf(row.createdAt);
    if (accepted) accepted.accepted++;
    if (row.status === "forwarded") {
      const forwarded = bucketOf(row.forwardedAt);
      if (forwarded && row.forwardedAt) {
        forwarded.forwarded++;
        forwarded.latencies.push(Date.parse(row.forwardedAt) - Date.parse(row.createdAt));
      }
    } else if (row.status === "failed") {
      const failed = bucketOf(row.updatedAt);
      if (failed) failed.failed++;
    }
  }
  const series: SeriesBucket[] = buckets.map(({ latencies, ...b }) => {
    const sorted = latencies.sort((x, y) => x - y);
    return { ...b, latencyP50Ms: percentile(sorted, 50), latencyP95Ms: percentile(sorted, 95) };
  });
  return { from: new Date(start).toISOString(), to: new Date(end).toISOString(), bucketMinutes, buckets: series };
}
