import type { Redis } from "ioredis";
import type { Logger } from "../../../log.js";
import type { LimiterNode, LimiterObserver, ReservedSend } from "../dispatcher.js";
import type { LimiterHistory } from "../hierarchy.js";
import type { ForwardingKeys } from "./keys.js";

/**
 * The dispatcher's limiter history in Redis, so that a dispatcher taking over (another process, after a crash or a
 * SIGTERM) resumes from the real sends and all processes together keep §8's limits. One sorted set per limiter node:
 * member = send id, score = when its answer came, or while in flight the latest time it can reach the upstream. The
 * N highest scores are kept — the next send waits for the N-th latest answer plus a window, which bounds every real
 * arrival whatever order the answers come in. Writes are pipelined and never block a send; a lost write only makes
 * the next dispatcher start from less history (the first window after a start, as after any restart).
 */
export class LimiterMirror implements LimiterObserver {
  constructor(
    private readonly redis: Redis,
    private readonly keys: ForwardingKeys,
    /** How long a node's history matters after its last send: its window plus a send's bound. */
    private readonly ttlMs: number,
    private readonly log: Logger,
  ) {}

  reserved(nodes: LimiterNode[], send: ReservedSend): void {
    const pipeline = this.redis.pipeline();
    for (const node of nodes) {
      const key = this.keys.log(node.name);
      pipeline.zadd(key, send.bound, send.sendId);
      pipeline.zremrangebyrank(key, 0, -(node.limit + 1));
      pipeline.pexpire(key, this.ttlMs);
    }
    this.#run(pipeline);
  }

  answered(nodes: LimiterNode[], send: ReservedSend, at: number): void {
    const pipeline = this.redis.pipeline();
    for (const node of nodes) pipeline.zadd(this.keys.log(node.name), "XX", at, send.sendId);
    this.#run(pipeline);
  }

  paused(credentialId: string, until: number): void {
    this.#run(this.redis.pipeline().hset(this.keys.pauses, credentialId, String(Math.ceil(until))));
  }

  /** The history kept in Redis (empty after a flush or a restart without persistence). */
  async load(now: number): Promise<LimiterHistory> {
    const logs = new Map<string, number[]>();
    let cursor = "0";
    do {
      const [next, keys] = await this.redis.scan(cursor, "MATCH", this.keys.logs, "COUNT", "500");
      cursor = next;
      for (const key of keys) {
        const flat = await this.redis.zrange(key, "0", "-1", "WITHSCORES");
        const scores = flat.filter((_, i) => i % 2 === 1).map(Number);
        logs.set(key.slice(this.keys.logPrefix.length), scores);
      }
    } while (cursor !== "0");
    const pausedUntil = new Map<string, number>();
    for (const [credentialId, until] of Object.entries(await this.redis.hgetall(this.keys.pauses))) {
      if (Number(until) > now) pausedUntil.set(credentialId, Number(until));
      else await this.redis.hdel(this.keys.pauses, credentialId);
    }
    return { logs, pausedUntil, at: now };
  }

  /** Writes a dispatcher's whole history back (Redis lost it: a flush, or a restart without persistence). */
  async rewrite(history: LimiterHistory): Promise<void> {
    const pipeline = this.redis.pipeline();
    for (const [node, times] of history.logs) {
      const key = this.keys.log(node);
      pipeline.del(key);
      for (const [i, at] of times.entries()) pipeline.zadd(key, at, `restored-${history.at}-${i}`);
      if (times.length > 0) pipeline.pexpire(key, this.ttlMs);
    }
    for (const [credentialId, until] of history.pausedUntil)
      pipeline.hset(this.keys.pauses, credentialId, String(Math.ceil(until)));
    await pipeline.exec();
  }

  #run(pipeline: ReturnType<Redis["pipeline"]>): void {
    pipeline.exec().catch((error: Error) => this.log.debug({ error: error.message }, "limiter mirror write failed"));
  }
}
