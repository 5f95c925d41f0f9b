import type { GatewayContext } from "../context.js";
import type { JsonValue } from "./bodies/index.js";
import { evaluateDeclared } from "./declared-expression.js";
import type { ResolvedConnection } from "./resolved-connection.js";

/**
 * Whether the vendor marked this payload as a test (Google's `is_test`, Cal.com's PING…): its declared test expression
 * is true. Its records are then test records (docs/connections.md): forwarded to the sandbox, never to a live platform.
 */
export async function isTestPayload(
  ctx: GatewayContext,
  connection: ResolvedConnection,
  tree: JsonValue,
): Promise<boolean> {
  const expression = connection.declarations.test;
  if (expression === undefined) return false;
  const marked = await evaluateDeclared(ctx.engine, expression, tree);
  return marked.ok && marked.value === true;
}
