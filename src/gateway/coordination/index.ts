export { databaseEligibility } from "./database-eligibility.js";
export { coordinationKeys, DEFAULT_PREFIX, parseWebhookDue, webhookDueMessage } from "./keys.js";
export { LeaderLock } from "./leader-lock.js";
export { Leadership, type LeadershipRole } from "./leadership.js";
export { type PauseBoard, redisPauseBoard } from "./pause-board.js";
export { ready, redisConnection, redisReachable } from "./redis-connections.js";
