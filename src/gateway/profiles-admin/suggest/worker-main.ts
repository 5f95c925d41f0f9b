import { parentPort } from "node:worker_threads";
import type { SuggestReply, SuggestRequest } from "./protocol.js";
import { suggestProfile } from "./suggest.js";
import type { SuggestInput } from "./types.js";

/**
 * The suggester's thread (runner.ts): one request at a time, answered in order. A request's body is parsed here, off
 * the thread that serves HTTP; it was already checked there (size, nesting, the route's schema).
 */
const port = parentPort;
if (port) {
  port.on("message", (request: SuggestRequest) => {
    let reply: SuggestReply;
    try {
      const input: SuggestInput = "text" in request ? (JSON.parse(request.text) as SuggestInput) : request.input;
      reply = { id: request.id, ok: true, suggestion: suggestProfile(input) };
    } catch (error) {
      reply = { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply);
  });
  port.postMessage({ ready: true } satisfies SuggestReply);
}
