export { redisReachable } from "../../src/gateway/coordination/redis-connections.js";

import { Redis } from "ioredis";

/** Deletes every key under `prefix:` (a bench's or a test's own; never anything else). */
export async function dropRedisPrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", "1000");
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
}
