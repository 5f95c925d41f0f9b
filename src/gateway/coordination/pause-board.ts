import type { Redis } from "ioredis";

/** 429 pauses by credential, visible to every sender. */
export interface PauseBoard {
  /** Until when (ms) the credential is paused, if it is. */
  pausedUntil(credentialId: string): Promise<number | undefined>;
  pause(credentialId: string, until: number): Promise<void>;
}

/**
 * The pause board of processes sharing one Redis (the BullMQ driver's workers): a hash of credential → until (ms), so
 * a 429 seen by one worker holds every other's sends on that credential at once (the limiter mirror keeps the same
 * hash for a successor dispatcher).
 */
export function redisPauseBoard(redis: Pick<Redis, "hget" | "hset">, key: string): PauseBoard {
  return {
    pausedUntil: async (credentialId) => {
      const until = Number(await redis.hget(key, credentialId));
      return Number.isFinite(until) && until > 0 ? until : undefined;
    },
    pause: async (credentialId, until) => {
      await redis.hset(key, credentialId, String(Math.ceil(until)));
    },
  };
}
