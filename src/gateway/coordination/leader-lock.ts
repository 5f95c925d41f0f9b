import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";

// Renew only our own lock; take it back if it vanished (a flush, a restart without persistence) — nobody else held it.
const RENEW = `
local holder = redis.call("GET", KEYS[1])
if holder == ARGV[1] then
  redis.call("PEXPIRE", KEYS[1], ARGV[2])
  return 1
elseif not holder then
  redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
  return 2
end
return 0`;

const RELEASE = `
if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end
return 0`;

/**
 * Who dispatches: one holder at a time of a Redis key (SET NX PX), renewed well within its time to live. A holder that
 * dies stops renewing and another process takes over when the key expires; a holder that cannot renew for half the
 * time to live stops dispatching before anyone else can start (see BullmqForwarding).
 */
export class LeaderLock {
  constructor(
    private readonly redis: Redis,
    private readonly key: string,
    readonly ttlMs: number,
    /** What the key holds while this process leads: the process's forwarding instance id. */
    readonly token: string = randomUUID(),
  ) {}

  async acquire(): Promise<boolean> {
    return (await this.redis.set(this.key, this.token, "PX", this.ttlMs, "NX")) === "OK";
  }

  /** `renewed`, `reclaimed` (the key had vanished: Redis lost its data), or `lost` (another process holds it). */
  async renew(): Promise<"renewed" | "reclaimed" | "lost"> {
    const result = await this.redis.eval(RENEW, 1, this.key, this.token, String(this.ttlMs));
    return result === 1 ? "renewed" : result === 2 ? "reclaimed" : "lost";
  }

  async release(): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.key, this.token);
  }
}
