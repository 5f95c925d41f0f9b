import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { newLead } from "./support/fixtures.js";
import { call, errorMessage, type Reply } from "./support/http.js";
import { openTarget, type Target } from "./support/target.js";

/**
 * §8 limits, window edges included. Locally the sandbox runs them per second (same rules, shorter windows); a remote
 * target is tested at its own limits, read from its RateLimit-Policy header (spec values when absent), which takes
 * a few minutes per test at 60-second windows.
 */
const LOCAL_LIMITS = {
  key: { limit: 5, windowMs: 1000 },
  owner: { limit: 8, windowMs: 1000 },
  ip: { limit: 12, windowMs: 1000 },
  health: { limit: 10, windowMs: 1000 },
};
const SPEC_POLICY: Record<string, Policy> = {
  key: { q: 60, w: 60 },
  owner: { q: 300, w: 60 },
  ip: { q: 600, w: 60 },
  health: { q: 3000, w: 60 },
};
const TIMEOUT = process.env.CONFORMANCE_BASE_URL ? 900_000 : 30_000;
const HEALTH_PATH = process.env.CONFORMANCE_HEALTH_PATH ?? "/health/live";

interface Policy {
  /** Quota. */
  q: number;
  /** Window in seconds. */
  w: number;
}

let target: Target;
let policy: Record<string, Policy>;

/** `"key";q=60;w=60, "owner";q=300;w=60` → {key: {q: 60, w: 60}, …} (draft-ietf-httpapi-ratelimit-headers). */
function parsePolicy(header: string | null): Record<string, Policy> {
  const out: Record<string, Policy> = {};
  for (const item of (header ?? "").split(",")) {
    const [name, ...params] = item.trim().split(";");
    const values = Object.fromEntries(params.map((p) => p.split("=")));
    if (name && values.q && values.w) out[name.replaceAll('"', "")] = { q: Number(values.q), w: Number(values.w) };
  }
  return out;
}

/** The remaining quota (`r`) of one policy in a RateLimit header. */
function remaining(reply: Reply, name: string): number | undefined {
  const item = (reply.headers.get("ratelimit") ?? "").split(",").find((i) => i.trim().startsWith(`"${name}"`));
  const r = item?.split(";").find((p) => p.startsWith("r="));
  return r ? Number(r.slice(2)) : undefined;
}

// Time itself is what §8 tests: a request at a given instant of the limiter's window (a remote target has no clock
// of ours to move).
const sleepUntil = (t: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, t - performance.now())));
const windowMs = (level: string) => (policy[level] ?? SPEC_POLICY[level] ?? { w: 60 }).w * 1000;
const quota = (level: string) => (policy[level] ?? SPEC_POLICY[level] ?? { q: 60 }).q;

/** A read that changes nothing: the contractor's job list. */
const read = () => call(target, "GET", "/api/inbound/jobs?take=1", { key: target.keys.contractor, retry429: false });

beforeAll(async () => {
  target = await openTarget({ limits: LOCAL_LIMITS });
  const inbound = parsePolicy((await read()).headers.get("ratelimit-policy"));
  const health = parsePolicy((await call(target, "GET", HEALTH_PATH)).headers.get("ratelimit-policy"));
  policy = { ...SPEC_POLICY, ...inbound, ...health };
});
beforeEach(() => target.restartWindows(Math.max(...Object.keys(policy).map(windowMs))));
afterAll(() => target.close());

describe("§8 Limits", () => {
  it(
    "a key is admitted at most its quota in any span of one window — the window slides, it is not fixed",
    async () => {
      const N = quota("key");
      const W = windowMs("key");
      const admitted: Reply[] = [];
      const start = performance.now();
      // A steady stream from idle, faster than the quota: a fixed or approximated window lets a second batch in
      // less than one window after the first began; an exact sliding window never does.
      while (performance.now() - start < 2.2 * W) {
        const reply = await read();
        if (reply.status === 200) admitted.push(reply);
        else expect(reply.status).toBe(429);
        await sleepUntil(reply.receivedAt + W / 100);
      }
      for (let i = 0; i + N < admitted.length; i++) {
        // Admission times lie between send and receipt, so this bounds the true gap from above.
        const later = admitted[i + N]?.receivedAt ?? 0;
        const earlier = admitted[i]?.sentAt ?? 0;
        expect(later - earlier).toBeGreaterThanOrEqual(W - 1);
      }
      expect(admitted.length).toBeGreaterThanOrEqual(2 * N);
    },
    TIMEOUT,
  );

  it(
    "a request before the oldest admission is one window old is refused; one after the newest is, is admitted",
    async () => {
      const N = quota("key");
      const W = windowMs("key");
      const burst: Reply[] = [];
      for (let i = 0; i < N; i++) burst.push(await read());
      expect(burst.map((r) => r.status)).toEqual(Array(N).fill(200));
      const first = burst[0] as Reply;
      const last = burst[N - 1] as Reply;

      await sleepUntil(first.sentAt + W - W / 4);
      const early = await read();
      // Conclusive only if the answer came back before the first admission could have left the window.
      expect(early.receivedAt).toBeLessThan(first.sentAt + W);
      expect(early.status).toBe(429);

      await sleepUntil(last.receivedAt + W + 5);
      expect((await read()).status).toBe(200);
    },
    TIMEOUT,
  );

  it(
    "a 429 carries retry-after in whole seconds, the RateLimit headers, the §7 error body and the version header",
    async () => {
      let reply = await read();
      for (let i = 0; reply.status !== 429 && i <= quota("key"); i++) reply = await read();
      expect(reply.status).toBe(429);
      expect(reply.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
      expect(reply.headers.get("ratelimit-policy")).toMatch(/q=\d+/);
      expect(reply.headers.get("ratelimit")).toMatch(/r=0/);
      expect(errorMessage(reply)).not.toBe("");
      expect(reply.headers.get("x-request-id")).toMatch(/\S/);
      expect(reply.headers.get("x-svc-api-version")).toBe("2026-08-26");
    },
    TIMEOUT,
  );

  it(
    "waiting retry-after seconds is enough to be admitted again (§7 client action)",
    async () => {
      let reply = await read();
      for (let i = 0; reply.status !== 429 && i <= quota("key"); i++) reply = await read();
      expect(reply.status).toBe(429);
      await sleepUntil(reply.receivedAt + Number(reply.headers.get("retry-after")) * 1000);
      expect((await read()).status).toBe(200);
    },
    TIMEOUT,
  );

  it(
    "an owner's keys share the owner quota: together they are admitted exactly that many times per window",
    async () => {
      const keys = [target.keys.general, target.keys.generalLeadsOnly, ...target.keys.sameOwnerKeys];
      const ownerQuota = quota("owner");
      if (keys.length * quota("key") <= ownerQuota) {
        throw new Error(`the owner test needs keys whose quotas add up past ${ownerQuota}: add sameOwnerKeys`);
      }
      const lead = newLead();
      const statuses: number[] = [];
      let refusal: Reply | undefined;
      for (let i = 0; !refusal && i <= ownerQuota; i++) {
        const reply = await call(target, "POST", "/api/inbound/leads", {
          key: keys[i % keys.length],
          json: lead,
          retry429: false,
        });
        statuses.push(reply.status);
        if (reply.status === 429) refusal = reply;
      }
      expect(statuses.filter((s) => s === 429)).toHaveLength(1);
      expect(statuses.filter((s) => s === 200 || s === 201)).toHaveLength(ownerQuota);
      expect(refusal && remaining(refusal, "owner")).toBe(0);
    },
    TIMEOUT,
  );

  it(
    "the inbound network guard counts every request from one source IP, with or without a key",
    async () => {
      const ipQuota = quota("ip");
      const statuses: number[] = [];
      for (let i = 0; i <= ipQuota; i++) {
        statuses.push((await call(target, "GET", "/api/inbound/jobs", { retry429: false })).status);
      }
      expect(statuses.slice(0, ipQuota)).toEqual(Array(ipQuota).fill(401));
      expect(statuses[ipQuota]).toBe(429);
    },
    TIMEOUT,
  );

  it(
    "health and version endpoints have their own per-IP quota",
    async () => {
      const healthQuota = quota("health");
      const statuses: number[] = [];
      for (let i = 0; i <= healthQuota; i++) {
        statuses.push((await call(target, "GET", HEALTH_PATH, { retry429: false })).status);
      }
      expect(statuses.slice(0, healthQuota)).toEqual(Array(healthQuota).fill(200));
      expect(statuses[healthQuota]).toBe(429);
      // The inbound surface is not charged for it.
      expect((await read()).status).toBe(200);
    },
    TIMEOUT,
  );
});
