import type { SuggestInput, Suggestion } from "./types.js";

/**
 * Messages between the runner and its thread. The owner API hands over the request body's text as received (the
 * thread parses it): a string is copied whole, where a parsed body of 2 MB would be cloned object by object on the
 * thread that serves HTTP.
 */
export type SuggestRequest = { id: number; text: string } | { id: number; input: SuggestInput };

export type SuggestReply =
  | { id: number; ok: true; suggestion: Suggestion }
  | { id: number; ok: false; message: string }
  /** Sent once, when the thread has loaded its code: the time limit counts from here, not from the thread's start. */
  | { ready: true };
