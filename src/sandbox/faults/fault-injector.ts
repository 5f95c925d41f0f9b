import { randomBytes } from "node:crypto";
import { type Clock, systemClock } from "../clock.js";
import type { Fault, FaultSpec } from "./fault-spec.js";

/** What to do to one request, rolled once per request. */
export interface FaultPlan {
  latencyMs: number;
  answerLatencyMs: number;
  outcome: "pass" | "reset" | "error" | "rate_limited";
  errorStatus: FaultSpec["errorStatus"];
  retryAfterSeconds: number;
}

function matches(route: string, method: string, path: string): boolean {
  if (route === "*") return true;
  const [routeMethod, routePath = ""] = route.split(" ");
  if (routeMethod !== method) return false;
  const want = routePath.split("/");
  const got = path.split("/");
  return want.length === got.length && want.every((part, i) => part.startsWith(":") || part === got[i]);
}

/**
 * Fault registry. One fault per route: adding one for a route replaces the previous. A specific route wins over `*`.
 * A fault with `durationMs` ends by the sandbox clock, so a storm's length does not depend on how often it is hit.
 */
export class FaultInjector {
  private faults: Fault[] = [];

  constructor(
    private readonly random: () => number = Math.random,
    private readonly clock: Clock = systemClock,
  ) {}

  add(spec: FaultSpec): Fault {
    const fault: Fault = { ...spec, id: `flt_${randomBytes(6).toString("hex")}`, hits: 0 };
    if (spec.durationMs !== undefined) fault.expiresAt = new Date(this.clock.now() + spec.durationMs).toISOString();
    this.faults = [...this.faults.filter((f) => f.route !== spec.route), fault];
    return fault;
  }

  list(): Fault[] {
    this.#dropExpired();
    return this.faults.map((f) => ({ ...f }));
  }

  remove(id: string): boolean {
    const before = this.faults.length;
    this.faults = this.faults.filter((f) => f.id !== id);
    return this.faults.length < before;
  }

  clear(): void {
    this.faults = [];
  }

  plan(method: string, path: string): FaultPlan | undefined {
    this.#dropExpired();
    const candidates = this.faults.filter((f) => matches(f.route, method, path));
    const fault = candidates.find((f) => f.route !== "*") ?? candidates[0];
    if (!fault) return undefined;
    fault.hits += 1;
    if (fault.count !== undefined && fault.hits >= fault.count) this.remove(fault.id);
    const roll = (p: number) => p > 0 && this.random() < p;
    const outcome = roll(fault.resetRate)
      ? "reset"
      : roll(fault.errorRate)
        ? "error"
        : roll(fault.rateLimitRate)
          ? "rate_limited"
          : "pass";
    return {
      latencyMs: fault.latencyMs,
      answerLatencyMs: fault.answerLatencyMs,
      outcome,
      errorStatus: fault.errorStatus,
      retryAfterSeconds: fault.retryAfterSeconds,
    };
  }

  #dropExpired(): void {
    const now = this.clock.now();
    this.faults = this.faults.filter((f) => f.expiresAt === undefined || Date.parse(f.expiresAt) > now);
  }
}
