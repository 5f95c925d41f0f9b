import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { unauthorized } from "../../http/errors.js";

const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();

/** Admin routes take `Authorization: Bearer <admin token>`, compared in constant time. */
export function adminAuth(token: string): MiddlewareHandler {
  const expected = digest(token);
  return async (c, next) => {
    const header = c.req.header("authorization") ?? "";
    const presented = header.startsWith("Bearer ") ? header.slice(7) : "";
    if (!presented || !timingSafeEqual(digest(presented), expected)) throw unauthorized("admin token required");
    await next();
  };
}
