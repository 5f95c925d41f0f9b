import { describe, expect, it } from "vitest";
import { findMappingFailures } from "../../../src/gateway/alerts/conditions/mapping-failures.js";
import { DEFAULT_THRESHOLDS, type Thresholds } from "../../../src/gateway/alerts/conditions.js";
import type { Scan } from "../../../src/gateway/alerts/scan.js";
import type { GatewayContext } from "../../../src/gateway/context.js";

/**
 * The mapping-failures finder's reads (D-381): what failed in the window, then, for what failed often enough only,
 * what it accepted, counted no further than the share needs. Its store is a stand-in that answers as the submissions
 * record does (its statements are tested on both databases in submissions.contract.test.ts) and records what it was
 * asked, so the test can say how much of a busy company's window an evaluation reads.
 */
function scanOf(window: {
  held?: { connectionId: string; held: number }[];
  refused?: { vendorKeyId: string; failures: number }[];
  /** What each resource accepted in the window: `connection:<id>` or `vendor_key:<id>`. */
  accepted: Record<string, number>;
}) {
  const asked: { resource: string; cap: number }[] = [];
  const submissions = {
    heldSince: async () => window.held ?? [],
    mappingFailuresSince: async () => window.refused ?? [],
    acceptedSince: async (
      _company: string,
      of: { connectionId: string } | { vendorKeyId: string },
      _since: number,
      cap: number,
    ) => {
      const resource = "connectionId" in of ? `connection:${of.connectionId}` : `vendor_key:${of.vendorKeyId}`;
      asked.push({ resource, cap });
      return Math.min(window.accepted[resource] ?? 0, cap);
    },
  };
  const thresholds: Thresholds = {
    ...DEFAULT_THRESHOLDS,
    mapping_failures: { enabled: true, rate: 0.2, minCount: 5, windowMinutes: 15 },
  };
  const scan: Scan = {
    ctx: { submissions } as unknown as GatewayContext,
    companyId: "co_a",
    nowMs: Date.parse("2026-11-28T12:00:00Z"),
    thresholds,
    live: () => [],
    keys: async () => [],
    connections: async () => [],
  };
  return { scan, asked };
}

describe("mapping failures: an evaluation reads what failed, not all a company received (D-381)", () => {
  it("asks nothing of a busy key or connection with no failures, nor of one under the minimum", async () => {
    const { scan, asked } = scanOf({
      held: [{ connectionId: "con_quiet", held: 4 }],
      accepted: { "vendor_key:vk_busy": 600_000, "connection:con_quiet": 10 },
    });
    expect(await findMappingFailures(scan)).toEqual([]);
    expect(asked).toEqual([]);
  });

  it("opens on a share at the rate, with the exact count in its message, and counts no further than the share needs", async () => {
    const { scan, asked } = scanOf({
      held: [{ connectionId: "con_failing", held: 10 }],
      refused: [{ vendorKeyId: "vk_busy", failures: 6 }],
      // 10 held of 50 accepted: exactly the 0.2 rate. The busy key's 6 refused of 600,006 sent: far under it.
      accepted: { "connection:con_failing": 50, "vendor_key:vk_busy": 600_000 },
    });
    const findings = await findMappingFailures(scan);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ resourceType: "connection", resourceId: "con_failing", count: 10 });
    expect(findings[0]?.message).toContain("10 of 50 payloads");
    // 10 failures at a rate of 0.2 hold up to 50 sent; one more says it is under the rate. The key's 6 refused count
    // as sent already: 30 - 6 = 24 accepted at most, and one more.
    expect(asked.sort((a, b) => a.resource.localeCompare(b.resource))).toEqual([
      { resource: "connection:con_failing", cap: 51 },
      { resource: "vendor_key:vk_busy", cap: 25 },
    ]);
  });

  it("does not open when the capped count shows the share under the rate (the control above opens at it)", async () => {
    const { scan } = scanOf({
      held: [{ connectionId: "con_failing", held: 10 }],
      accepted: { "connection:con_failing": 51 },
    });
    expect(await findMappingFailures(scan)).toEqual([]);
  });
});
