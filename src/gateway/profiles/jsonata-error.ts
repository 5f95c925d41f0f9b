/** JSONata throws plain objects (`{code, message, position, token}`), not Error instances. */
export interface JsonataFailure {
  code?: string;
  message: string;
  position?: number;
  token?: string;
}

export function asJsonataFailure(error: unknown): JsonataFailure {
  if (typeof error === "object" && error !== null && "message" in error && typeof error.message === "string") {
    const failure: JsonataFailure = { message: error.message };
    if ("code" in error && typeof error.code === "string") failure.code = error.code;
    if ("position" in error && typeof error.position === "number") failure.position = error.position;
    if ("token" in error && typeof error.token === "string") failure.token = error.token;
    return failure;
  }
  return { message: String(error) };
}

/** A native stack overflow (a deep payload walked by `**`, a parser fed thousands of nested parentheses). */
export function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack/i.test(error.message);
}
