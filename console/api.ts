/** The owner API from the browser: the session cookie rides along, every mutation echoes the CSRF token. */
export interface Owner {
  ownerId: string;
  companyId: string;
  role: "admin" | "viewer";
  email: string;
}

let csrfToken: string | null = null;
let onSignedOut: () => void = () => {};

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(typeof body.error === "string" ? body.error : `request failed (${status})`);
  }
}

export function setCsrf(token: string | null): void {
  csrfToken = token;
}

export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

export async function api<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (method !== "GET" && csrfToken) headers["x-csrf-token"] = csrfToken;
  const res = await fetch(`/owner/v1${path}`, {
    method,
    headers,
    credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const parsed = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
  if (res.status === 401 && path !== "/sessions") onSignedOut();
  if (!res.ok) throw new ApiFailure(res.status, parsed);
  return parsed as T;
}

/** Query string from the defined values only. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
}
