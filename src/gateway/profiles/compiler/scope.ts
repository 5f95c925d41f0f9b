import { Unsupported } from "./ast.js";

/**
 * Block variables, resolved when the expression is compiled. In the subset a binding is always a statement of a
 * block (never inside a condition or an argument), so which binding a `$name` sees is fixed by the text: the latest
 * one made by an earlier statement of its block, else of an enclosing block, as JSONata's frames give it. Each
 * binding site gets a slot in the evaluation's slot array.
 */
export class Scope {
  private readonly names = new Map<string, number>();

  private constructor(
    private readonly parent: Scope | undefined,
    private readonly slots: { count: number },
  ) {}

  static root(): Scope {
    return new Scope(undefined, { count: 0 });
  }

  /** A block's own frame. */
  nested(): Scope {
    return new Scope(this, this.slots);
  }

  /** Called after the statement's value is compiled: the value itself still sees the previous binding. */
  bind(name: string): number {
    const slot = this.slots.count++;
    this.names.set(name, slot);
    return slot;
  }

  /** The slot a variable reads, or undefined if no block binds it before this point. */
  resolve(name: string): number | undefined {
    return this.names.get(name) ?? this.parent?.resolve(name);
  }

  get slotCount(): number {
    return this.slots.count;
  }
}

export function variableName(value: unknown): string {
  if (typeof value !== "string") throw new Unsupported("a variable without a name");
  return value;
}
