import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROOT, SRC, sourceFiles } from "./table-touches.js";

/**
 * The transaction boundary (docs/decisions.md, D-371). Work that takes a TransactionContext cannot reach the pool's
 * stores: the compiler holds that (test/types/transaction-boundary.ts). Work written inline, `ctx.transaction(async
 * (tx) => …)`, still sees the `ctx` around it, whose stores would wait for the transaction itself (the SQLite gate, a
 * connection it holds on PostgreSQL) and whose running parts would hear of rows before their commit: this finds every
 * such work in the gateway and asserts it names no `ctx` (nor the `this.#ctx` of a class). A function or method that
 * takes a TransactionContext may still be a class's, holding its context: it may use the context's log or settings,
 * never its stores, `running` or `transaction`.
 */

/** What of the context work inside a transaction must not reach: the pool-level stores, what runs, a transaction. */
const POOL_LEVEL = new Set([
  "submissions",
  "vendorKeys",
  "tenants",
  "credentials",
  "profiles",
  "webhooks",
  "connections",
  "alerts",
  "running",
  "transaction",
]);

interface Work {
  file: string;
  line: number;
  /** The context's names the work reaches: `ctx`, `this.#ctx`. */
  reaches: string[];
}

/**
 * Every function passed as the work of a `….transaction(…)` call in `source`, with what it reaches of the context; and
 * every function taking a TransactionContext, with the pool-level parts of a context it reaches.
 */
function transactionWorks(file: string, source: string): Work[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const works: Work[] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isFunctionLike(node) &&
      "body" in node &&
      node.body &&
      node.parameters.some((p) => p.type?.getText(sf) === "TransactionContext")
    ) {
      const reaches: string[] = [];
      const inner = (n: ts.Node) => {
        if (ts.isPropertyAccessExpression(n) && POOL_LEVEL.has(n.name.getText(sf))) {
          const owner = n.expression.getText(sf);
          if (owner === "ctx" || owner === "this.#ctx") reaches.push(`${owner}.${n.name.getText(sf)}`);
        }
        ts.forEachChild(n, inner);
      };
      inner(node.body);
      works.push({ file, line: sf.getLineAndCharacterOfPosition(node.getStart()).line + 1, reaches });
    }
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === "transaction"
    ) {
      const work = node.arguments[0];
      if (work && (ts.isArrowFunction(work) || ts.isFunctionExpression(work))) {
        const reaches: string[] = [];
        const inner = (n: ts.Node) => {
          if (ts.isIdentifier(n) && n.text === "ctx") reaches.push("ctx");
          if (ts.isPropertyAccessExpression(n) && n.name.getText(sf) === "#ctx") reaches.push("this.#ctx");
          ts.forEachChild(n, inner);
        };
        inner(work.body);
        works.push({ file, line: sf.getLineAndCharacterOfPosition(work.getStart()).line + 1, reaches });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return works;
}

/** The gateway's code; the storage itself builds transactions from the stores and is not a caller of one. */
const FILES = sourceFiles(SRC).filter((f) => f.startsWith("src/gateway/") && !f.startsWith("src/gateway/storage/"));

describe("D-371: work inside a transaction reaches only the transaction's context", () => {
  it("finds a work that reaches the context around it (positive control)", () => {
    const source = [
      "export const a = (ctx) => ctx.transaction(async (tx) => { await ctx.submissions.get('s'); });",
      "export class B { m() { return this.#ctx.transaction((tx) => this.#ctx.webhooks.get('w')); } }",
      "export const c = (ctx) => ctx.transaction((tx) => tx.submissions.get('s'));",
      "export class D { async m(tx: TransactionContext) { this.#ctx.log.info({}, 'x'); await this.#ctx.credentials.get('c'); } }",
    ].join("\n");
    const works = transactionWorks("fixture.ts", source);
    expect(works.map((w) => w.reaches)).toEqual([["ctx"], ["this.#ctx"], [], ["this.#ctx.credentials"]]);
  });

  it("no work given to a transaction names `ctx` or `this.#ctx`; none taking a TransactionContext reaches the pool", () => {
    const works = FILES.flatMap((file) => transactionWorks(file, readFileSync(join(ROOT, file), "utf8")));
    // The scan sees the gateway's transactions (outcomes, deliveries, platform events, hooks, erasure…).
    expect(works.length).toBeGreaterThanOrEqual(10);
    expect(works.filter((w) => w.reaches.length > 0).map((w) => `${w.file}:${w.line} ${w.reaches.join(", ")}`)).toEqual(
      [],
    );
  });
});
