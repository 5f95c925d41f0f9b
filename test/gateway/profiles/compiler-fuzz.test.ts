import { describe, expect, it } from "vitest";
import { compiledOf, interpreterOf, type Result, runCompiled } from "./compiler-harness.js";

/**
 * Random expressions of the compiled subset, on random documents, against JSONata's interpreter: the table
 * (compiler-expressions.test.ts) shows each construct alone, this shows them composed — a predicate on a block's
 * variable inside an object inside a path — where a flattening or unwrapping slip would hide.
 */
const EXPRESSIONS = 1000;
const DOCUMENTS = 4;

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIELDS = ["a", "b", "c", "k", "list", "name"];

class Generator {
  constructor(readonly next: () => number) {}

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  document(depth = 0): unknown {
    const roll = this.next();
    if (depth > 3 || roll < 0.35) {
      return this.pick([0, 1, 2, -1, 2.5, "x", "y", "", "Ann", "42", true, false, null]);
    }
    if (roll < 0.6) {
      return Array.from({ length: Math.floor(this.next() * 4) }, () => this.document(depth + 1));
    }
    const result: Record<string, unknown> = {};
    for (const field of FIELDS) if (this.chance(0.5)) result[field] = this.document(depth + 1);
    return result;
  }

  expression(depth: number, variables: string[]): string {
    if (depth <= 0) return this.leaf(variables);
    const roll = this.next();
    const sub = () => this.expression(depth - 1, variables);
    if (roll < 0.22) return this.path(depth, variables);
    if (roll < 0.34)
      return `${sub()} ${this.pick(["+", "-", "*", "=", "!=", "<", ">=", "&", "and", "or", "in"])} ${sub()}`;
    if (roll < 0.4) return `(${sub()})[${this.predicate(depth - 1, variables)}]`;
    if (roll < 0.46) return `${sub()} ? ${sub()} : ${sub()}`;
    if (roll < 0.56) return this.block(depth, variables);
    if (roll < 0.64) return `[${Array.from({ length: 1 + Math.floor(this.next() * 3) }, sub).join(", ")}]`;
    if (roll < 0.74) return this.object(depth, variables);
    if (roll < 0.9) return this.call(depth, variables);
    if (roll < 0.94) return `-(${sub()})`;
    return `(${sub()})[]`;
  }

  private leaf(variables: string[]): string {
    const roll = this.next();
    if (roll < 0.45) return this.pick(FIELDS);
    if (roll < 0.6 && variables.length > 0) return this.pick(variables);
    if (roll < 0.7) return this.pick(["$", "$$"]);
    return this.pick(['"x"', '"a"', '""', "0", "1", "2", "-1", "true", "false", "null"]);
  }

  private path(depth: number, variables: string[]): string {
    const start = this.chance(0.3) ? this.pick(["$", "$$", ...variables]) : this.pick(FIELDS);
    const steps = [start];
    const count = 1 + Math.floor(this.next() * 3);
    for (let i = 0; i < count; i++) {
      let step = this.chance(0.15) ? this.object(depth - 1, variables) : this.pick(FIELDS);
      if (this.chance(0.3)) step += `[${this.predicate(depth - 1, variables)}]`;
      if (this.chance(0.1)) step += "[]";
      steps.push(step);
    }
    return steps.join(".");
  }

  private predicate(depth: number, variables: string[]): string {
    const roll = this.next();
    if (roll < 0.35) return this.pick(["0", "1", "-1", "2", "0.5", "-3"]);
    if (roll < 0.6) return `${this.pick(FIELDS)} ${this.pick(["=", "!=", ">", "<"])} ${this.leaf(variables)}`;
    return this.expression(Math.max(0, depth), variables);
  }

  private block(depth: number, variables: string[]): string {
    const scoped = [...variables];
    const statements: string[] = [];
    const count = 1 + Math.floor(this.next() * 3);
    for (let i = 0; i < count; i++) {
      const name = this.pick(["$p", "$q", "$r"]);
      statements.push(`${name} := ${this.expression(depth - 1, scoped)}`);
      if (!scoped.includes(name)) scoped.push(name);
    }
    statements.push(this.expression(depth - 1, scoped));
    return `( ${statements.join("; ")} )`;
  }

  private object(depth: number, variables: string[]): string {
    const keys = this.chance(0.8) ? ['"k1"', '"k2"', '"k3"'] : [this.pick(FIELDS), '"k2"'];
    const pairs = keys.slice(0, 1 + Math.floor(this.next() * keys.length));
    return `{${pairs.map((key) => `${key}: ${this.expression(depth - 1, variables)}`).join(", ")}}`;
  }

  private call(depth: number, variables: string[]): string {
    const sub = () => this.expression(depth - 1, variables);
    return this.pick([
      () => `$string(${sub()})`,
      () => `$number(${sub()})`,
      () => `$boolean(${sub()})`,
      () => `$not(${sub()})`,
      () => `$exists(${sub()})`,
      () => `$count(${sub()})`,
      () => `$join(${sub()}, ",")`,
      () => `$uppercase(${sub()})`,
      () => `$trim(${sub()})`,
      () => `$length(${sub()})`,
      () => `$substring(${sub()}, ${this.pick(["0", "1", "-2"])}, ${this.pick(["1", "3"])})`,
      () => `$contains(${sub()}, "a")`,
      () => `$default(${sub()}, ${sub()})`,
      () => `$joinName(${sub()}, ${sub()})`,
      () => `$toBool(${sub()})`,
    ])();
  }
}

describe("random compositions of the compiled subset agree with JSONata's interpreter", () => {
  it(`${EXPRESSIONS} expressions × ${DOCUMENTS} documents`, async () => {
    const generate = new Generator(random(20261122));
    const documents = Array.from({ length: DOCUMENTS }, () => generate.document());
    const tally = { compared: 0, bailouts: 0, notCompiled: 0 };
    for (let i = 0; i < EXPRESSIONS; i++) {
      const expression = generate.expression(1 + Math.floor(generate.next() * 3), []);
      const program = compiledOf(expression);
      if (typeof program === "string") {
        tally.notCompiled++;
        continue;
      }
      const interpret = interpreterOf(expression);
      for (const document of documents) {
        const expected: Result = await interpret(document);
        const actual = runCompiled(program, document);
        if ("bailout" in actual) {
          tally.bailouts++;
          continue;
        }
        tally.compared++;
        // Which of several failures JSONata reports depends on how its awaits interleave (array and object
        // constructors evaluate their items in parallel); the evaluator takes the error from the interpreter's rerun,
        // so what must agree is whether it fails.
        if ("error" in actual && "error" in expected) continue;
        expect({ expression, document, ...actual }).toEqual({ expression, document, ...expected });
      }
    }
    expect(tally.notCompiled).toBeLessThan(EXPRESSIONS / 20);
    expect(tally.compared).toBeGreaterThan(EXPRESSIONS * DOCUMENTS * 0.8);
  });
});
