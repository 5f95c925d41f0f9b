import { ApiError } from "../../http/errors.js";
import type { GatewayContext } from "../context.js";
import {
  type Suggestion,
  SuggestionBusyError,
  SuggestionClosedError,
  SuggestionTimeoutError,
} from "./suggest/index.js";

/**
 * A suggested profile for an unknown vendor from a few of its payloads (docs/profiles.md, "Suggested profiles"),
 * made on the suggester's own thread from the request body's text. Busy or closed is a 503 with retry-after, as the
 * evaluators' are; past the time limit a 422: the same payloads would take as long again (docs/decisions.md, D-314).
 */
export async function suggestProfileForOwner({
  ctx,
  body,
}: {
  ctx: GatewayContext;
  body: string;
}): Promise<Suggestion> {
  try {
    return await ctx.suggester.suggestFromText(body);
  } catch (error) {
    if (error instanceof SuggestionBusyError || error instanceof SuggestionClosedError) {
      throw new ApiError("unavailable", "the profile suggester is busy; retry shortly", {
        headers: { "retry-after": "1" },
        cause: error,
      });
    }
    if (error instanceof SuggestionTimeoutError) {
      throw new ApiError("unprocessable", `${error.message}: send fewer or smaller payloads`, { cause: error });
    }
    throw error;
  }
}
