import type { Logger } from "../../log.js";
import type { LeaderLock } from "./leader-lock.js";

/** What a role elected through a lock does at each step of its term. */
export interface LeadershipRole {
  /** Logged with every message ("forwarding dispatcher", "webhook dispatcher"). */
  name: string;
  /** Logged with the role's messages (the process's instance id). */
  logFields?: Record<string, unknown>;
  /** The lock was taken at `acquiredAt`: start leading. */
  elected(acquiredAt: number): Promise<void> | void;
  /** Stop leading (the lock was lost, Redis is unreachable for too long, or the process closes). */
  stepDown(reason: string): Promise<void> | void;
  /** After each renewal; `reclaimed`: the key had vanished (Redis lost its data) and was taken back. */
  renewed?(state: "renewed" | "reclaimed"): Promise<void> | void;
  /** Before each step, leading or not (the forwarding workers announce themselves here). */
  beforeStep?(): Promise<void>;
  /** Whether the loop's timer alone keeps the process alive (a worker process has nothing else to wait for). */
  holdsProcess?: boolean;
  /**
   * Whether this process can do the role's work now — it reaches the database (D-335). Asked at each step: a process
   * that cannot does not take the lock, and a holder that has not been able to for half the lock's time to live
   * steps down and releases it, so that a process that can takes over. Must answer quickly (a ping with a timeout).
   */
  eligible?(): Promise<boolean>;
}

/**
 * The term loop of a role elected through a Redis lock (coordination/leader-lock.ts), shared by forwarding's
 * dispatcher and the webhook dispatcher: every sixth of the lock's time to live, the holder renews it and the others
 * try to take it. The fence: a holder whose renewals fail steps down once the last one is half the time to live old,
 * before the lock can expire and another process start — and `fenceOpen()` says whether it may act meanwhile.
 */
export class Leadership {
  readonly #lock: LeaderLock;
  readonly #role: LeadershipRole;
  readonly #log: Logger;
  #leading = false;
  #renewedAt = 0;
  #stepping = false;
  /** When this process last found itself able to do the role's work (eligible). */
  #ableAt = Date.now();
  #closed = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(lock: LeaderLock, role: LeadershipRole, log: Logger) {
    this.#lock = lock;
    this.#role = role;
    this.#log = log;
  }

  get leading(): boolean {
    return this.#leading;
  }

  get lock(): LeaderLock {
    return this.#lock;
  }

  /** Whether the holder renewed its lock within half the time to live: it may act now. */
  fenceOpen(now = Date.now()): boolean {
    return this.#leading && now - this.#renewedAt < this.#lock.ttlMs / 2;
  }

  /** Starts the loop; resolves after its first step. */
  start(): Promise<void> {
    this.#timer = setInterval(() => void this.step(), this.#interval());
    if (!this.#role.holdsProcess) this.#timer.unref();
    return this.step();
  }

  /** One step of the loop: renew (holder) or try to acquire (the others). */
  async step(): Promise<void> {
    if (this.#stepping || this.#closed) return;
    this.#stepping = true;
    const sentAt = Date.now();
    try {
      await this.#role.beforeStep?.();
      const able = this.#role.eligible ? await this.#role.eligible() : true;
      if (able) this.#ableAt = Date.now();
      if (this.#leading && !able && Date.now() - this.#ableAt > this.#lock.ttlMs / 2) {
        // It cannot reach the database: its loops move to a process that can (D-335).
        await this.#stepDown("database unreachable");
        await this.#lock.release().catch(() => undefined);
        return;
      }
      if (!this.#leading && !able) return;
      if (this.#leading) {
        const state = await this.#lock.renew();
        if (state === "lost") return await this.#stepDown("lock taken by another process");
        this.#renewedAt = sentAt;
        await this.#role.renewed?.(state);
      } else if (await this.#lock.acquire()) {
        this.#renewedAt = sentAt;
        if (this.#closed) return;
        this.#leading = true;
        await this.#role.elected(sentAt);
        this.#log.info({ ...this.#role.logFields }, `${this.#role.name}: took over`);
      }
    } catch (error) {
      this.#log.debug({ error: (error as Error).message }, `${this.#role.name} lock: redis unreachable`);
      // Renewals failing: stop acting before the lock can expire and another process start.
      if (this.#leading && Date.now() - this.#renewedAt > this.#lock.ttlMs / 2)
        await this.#stepDown("redis unreachable");
    } finally {
      this.#stepping = false;
    }
  }

  /**
   * Stops the loop; a holder steps down and releases the lock, so another process takes over at once. While its role
   * steps down (the webhook dispatcher's grace for the deliveries in flight, D-383) the lock is still renewed: no
   * other process takes the role before this one has let go of what it was doing.
   */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    const led = this.#leading;
    const renewing = led
      ? setInterval(() => void this.#lock.renew().catch(() => undefined), this.#interval())
      : undefined;
    try {
      await this.#stepDown("closing");
    } finally {
      clearInterval(renewing);
    }
    if (led) await this.#lock.release().catch(() => undefined);
  }

  /** How often the loop steps: six times in the lock's time to live. */
  #interval(): number {
    return Math.max(50, Math.floor(this.#lock.ttlMs / 6));
  }

  async #stepDown(reason: string): Promise<void> {
    if (!this.#leading) return;
    this.#leading = false;
    if (!this.#closed) this.#log.warn({ ...this.#role.logFields, reason }, `${this.#role.name}: stepped down`);
    await this.#role.stepDown(reason);
  }
}
