/**
 * Idempotency keys whose request is being handled right now, by owner (§8: keys are scoped to the owner). The
 * sandbox is one process, so this set is the whole truth; it is not durable because a request does not outlive the
 * process that handles it.
 */
export class InFlightKeys {
  readonly #keys = new Set<string>();

  /** False when the owner's key is already in flight. */
  claim(ownerId: string, key: string): boolean {
    const id = `${ownerId}\u0000${key}`;
    if (this.#keys.has(id)) return false;
    this.#keys.add(id);
    return true;
  }

  release(ownerId: string, key: string): void {
    this.#keys.delete(`${ownerId}\u0000${key}`);
  }

  get size(): number {
    return this.#keys.size;
  }
}
