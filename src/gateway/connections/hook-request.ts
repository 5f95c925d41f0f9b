import type { BodySource } from "../../http/json-body.js";
import type { QuerySource } from "./proofs/index.js";

/** A vendor's request to a hook URL, whatever serves it (Node's request, or Hono's context). */
export interface HookHttpRequest extends BodySource {
  method: string;
  /** The token in the path (`/hooks/<token>`). */
  token: string;
  /** The full URL as the vendor called it (a proof may sign it). */
  url: string;
  headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  query: QuerySource;
}

/** What the vendor is answered: its own expected answer (text, JSON or XML), or an error. */
export interface HookAnswer {
  status: number;
  contentType: string;
  body: string;
  headers?: Record<string, string>;
}
