/** A FIFO with O(1) push, unshift and shift (a backlog of thousands must not cost O(n) per send). */
export class Deque<T> {
  #items: (T | undefined)[] = [];
  #head = 0;

  get size(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  unshift(item: T): void {
    if (this.#head > 0) this.#items[--this.#head] = item;
    else this.#items.unshift(item);
  }

  shift(): T | undefined {
    if (this.size === 0) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head++] = undefined;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (let i = this.#head; i < this.#items.length; i++) {
      const item = this.#items[i];
      if (item !== undefined) yield item;
    }
  }

  /** Removes and returns every item matching `predicate`. */
  extract(predicate: (item: T) => boolean): T[] {
    const kept: T[] = [];
    const taken: T[] = [];
    for (const item of this) (predicate(item) ? taken : kept).push(item);
    this.#items = kept;
    this.#head = 0;
    return taken;
  }
}
