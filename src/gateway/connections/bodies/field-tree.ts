import { tooManyFields } from "./hook-body-error.js";
import type { JsonValue } from "./json-value.js";

/**
 * Fields in the order received → `{name: value}`, a name repeated → an array of its values in order (D-280). Names are
 * kept literally (`a[b]` stays the key "a[b]"); a Map then Object.fromEntries makes every name an own property, so a
 * field named `__proto__` is a key like any other, as JSON.parse makes it.
 */
export class FieldTree {
  private readonly fields = new Map<string, string | string[]>();
  private count = 0;

  constructor(private readonly maxFields: number) {}

  add(name: string, value: string): void {
    if (++this.count > this.maxFields) throw tooManyFields(this.maxFields);
    const earlier = this.fields.get(name);
    if (earlier === undefined) this.fields.set(name, value);
    else if (Array.isArray(earlier)) earlier.push(value);
    else this.fields.set(name, [earlier, value]);
  }

  tree(): JsonValue {
    return Object.fromEntries(this.fields);
  }
}
