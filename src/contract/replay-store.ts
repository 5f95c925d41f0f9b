/**
 * §6.3.2 "de-duplicate" and §6.6 "store the event id and the delivery id". The vendor helper keeps these in memory
 * (src/receiver/memory-replay-cache.ts); the gateway keeps them in its database.
 */
export interface ReplayStore {
  /**
   * Records a delivery id, atomically; false when it was already recorded (a replay). It must be kept at least until
   * `keepUntil` (Unix seconds): until then a copy would still pass the timestamp check.
   */
  rememberDelivery(deliveryId: string, keepUntil: number): boolean | Promise<boolean>;
  /**
   * §6.6: whether the event was already processed. Marking an event processed is the receiver's act, done with (in
   * the same transaction as) its durable processing — never by the verifier, which cannot know processing succeeded.
   */
  isEventProcessed(eventId: string): boolean | Promise<boolean>;
}
